/**
 * The inbox agent's mailbox against a real Dovecot on loopback (src/docs/notes/model.md Sources): new mail is
 * read with subjects and correspondents, flags stay as they were (read-only), a second read after
 * markSeen sees only new mail, a wrong password raises the `imap` alert and a later success clears
 * it, reads are bounded, and the password appears in no response and no log line.
 */
import { type AddressInfo, createServer } from "node:net";
import { ImapFlow } from "imapflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSourcesFor, type SourceDeps, SourceError } from "../../src/integrations/sources.ts";
import { createLogger } from "../../src/lib/log.ts";
import { openOrgAlert } from "../../src/store/integrations/alerts.ts";
import { type Dovecot, startDovecot } from "../helpers/dovecot.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

const PASSWORD = "mailbox-pass-Zq81x";
const LIMITS = { maxItems: 10, maxChars: 2000 };

let s: TestServer;
let dovecot: Dovecot;
let call: ReturnType<typeof api>;
const logLines: string[] = [];
let deps: SourceDeps;

/** Flags of every message as another IMAP client sees them (read-only itself), \Recent left out (per session). */
async function flagsByUid(): Promise<Record<number, string[]>> {
  const client = new ImapFlow({
    host: dovecot.host,
    port: dovecot.port,
    secure: false,
    auth: { user: dovecot.user, pass: PASSWORD },
    logger: false,
  });
  await client.connect();
  await client.mailboxOpen("INBOX", { readOnly: true });
  const out: Record<number, string[]> = {};
  for (const m of await client.fetchAll("1:*", { uid: true, flags: true }, { uid: true })) {
    out[m.uid] = [...(m.flags ?? [])].filter((f) => f !== "\\Recent").sort();
  }
  await client.logout();
  return out;
}

beforeAll(async () => {
  dovecot = await startDovecot("crew", PASSWORD);
  s = await startServer();
  const { key } = await s.userWithKey("operator", ["admin"]);
  call = api(s.url, key);
  deps = {
    ...s.deps,
    log: createLogger("debug", (line) => logLines.push(line)),
    policy: { allowPrivate: true, resolve: async () => ["127.0.0.1"] },
  };
  const base = Date.UTC(2026, 10, 20, 9, 0, 0);
  dovecot.deliver({
    from: '"Ada Lovelace" <ada@example.org>',
    subject: "Engine pricing",
    body: "Could we talk about pricing?",
    date: new Date(base),
  });
  dovecot.deliver({
    from: "grace@example.net",
    subject: "Compiler demo",
    body: "Demo on Friday.",
    date: new Date(base + 60_000),
    flags: "F",
  });
  dovecot.deliver({
    from: '"Alan T" <alan@example.com>',
    subject: "Re: contract",
    body: "Signed copy attached.",
    date: new Date(base + 120_000),
    flags: "S",
  });
}, 30_000);

afterAll(async () => {
  await s?.close();
  await dovecot?.stop();
});

describe("IMAP source (real Dovecot on loopback)", () => {
  it("without a mailbox the inbox agent says what is missing", async () => {
    const read = await readSourcesFor(deps, s.org.id, "inbox", LIMITS);
    expect(read.missing).toBe("Needs a mailbox: add one in Settings → Sources");
    expect(read.items).toEqual([]);
  });

  it("stores the mailbox through the API without ever showing the password", async () => {
    const res = await call("/api/integrations/sources", {
      body: { kind: "imap", host: dovecot.host, port: dovecot.port, tls: false, username: "crew", password: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      kind: "imap",
      host: "127.0.0.1",
      port: dovecot.port,
      tls: false,
      username: "crew",
      folder: "INBOX",
      agents: ["inbox"],
    });
    expect(res.text).not.toContain(PASSWORD);
    const listed = await call("/api/integrations/sources");
    expect(listed.json.sources).toHaveLength(1);
    expect(listed.text).not.toContain(PASSWORD);
    const stored = await s.db.execute("SELECT config FROM sources");
    expect(String(stored.rows[0]?.config)).not.toContain(PASSWORD);
  });

  it("reads the 3 messages with subjects and correspondents, newest first, and leaves every flag as it was", async () => {
    const before = await flagsByUid();
    expect(Object.values(before)).toEqual([[], ["\\Flagged"], ["\\Seen"]]);
    const read = await readSourcesFor(deps, s.org.id, "inbox", LIMITS);
    expect(read.missing).toBeNull();
    expect(read.items.map((i) => i.title)).toEqual(["Re: contract", "Compiler demo", "Engine pricing"]);
    expect(read.items.map((i) => i.from)).toEqual([
      { name: "Alan T", email: "alan@example.com" },
      { email: "grace@example.net" },
      { name: "Ada Lovelace", email: "ada@example.org" },
    ]);
    expect(read.items[2]).toMatchObject({
      kind: "mail",
      text: "Could we talk about pricing?",
      source: "INBOX",
      date: "2026-11-20T09:00:00.000Z",
    });
    expect(await flagsByUid()).toEqual(before);
    // Not yet marked seen: the same mail again.
    expect((await readSourcesFor(deps, s.org.id, "inbox", LIMITS)).items).toHaveLength(3);
    await read.markSeen();
    expect(await flagsByUid()).toEqual(before);
  });

  it("after markSeen a second read sees only new mail, bounded to the newest maxItems and maxChars", async () => {
    expect((await readSourcesFor(deps, s.org.id, "inbox", LIMITS)).items).toEqual([]);
    dovecot.deliver({ from: "new1@example.com", subject: "New one", body: "x".repeat(500) });
    dovecot.deliver({ from: "new2@example.com", subject: "New two", body: "short" });
    dovecot.deliver({ from: "new3@example.com", subject: "New three", body: "also short" });
    const read = await readSourcesFor(deps, s.org.id, "inbox", { maxItems: 2, maxChars: 100 });
    expect(read.items.map((i) => i.title)).toEqual(["New three", "New two"]);
    await read.markSeen();
    // The older new message beyond the limit is passed over, not read later.
    expect((await readSourcesFor(deps, s.org.id, "inbox", LIMITS)).items).toEqual([]);
    dovecot.deliver({ from: "long@example.com", subject: "Long", body: "y".repeat(500) });
    const long = await readSourcesFor(deps, s.org.id, "inbox", { maxItems: 5, maxChars: 100 });
    expect(long.items).toHaveLength(1);
    expect(Array.from(long.items[0]?.text ?? "")).toHaveLength(100);
  });

  it("a wrong password raises the imap alert; a later success clears it", async () => {
    const save = (password: string) =>
      call("/api/integrations/sources", {
        body: { kind: "imap", host: dovecot.host, port: dovecot.port, tls: false, username: "crew", password },
      });
    expect((await save("wrong-password-Kx2")).status).toBe(200);
    const failed = await readSourcesFor(deps, s.org.id, "inbox", LIMITS).catch((e) => e);
    expect(failed).toBeInstanceOf(SourceError);
    expect(failed.message).toMatch(/refused the user name and password/);
    const alert = await openOrgAlert(s.db, s.org.id, "imap");
    expect(alert?.message).toBe("Mailbox: The mail server refused the user name and password. Correct it in Settings → Sources.");
    const listed = await call("/api/integrations/sources");
    expect(listed.json.sources[0].problem).toBe(alert?.message);
    expect(listed.text).not.toContain("wrong-password-Kx2");
    // A second failure keeps the one alert.
    await readSourcesFor(deps, s.org.id, "inbox", LIMITS).catch(() => null);
    expect(
      (await s.db.execute("SELECT COUNT(*) AS n FROM integration_alerts WHERE service = 'imap' AND resolved_at IS NULL")).rows[0]?.n,
    ).toBe(1);
    expect((await save(PASSWORD)).status).toBe(200);
    const read = await readSourcesFor(deps, s.org.id, "inbox", LIMITS);
    expect(await openOrgAlert(s.db, s.org.id, "imap")).toBeNull();
    // A replaced mailbox is read afresh.
    expect(read.items).toHaveLength(7);
  });

  it("an unreachable server and a refused address give the same message", async () => {
    const closed = { ...deps, policy: { allowPrivate: false, resolve: async () => ["127.0.0.1"] } };
    const refused = await readSourcesFor(closed, s.org.id, "inbox", LIMITS).catch((e) => e);
    expect(refused).toBeInstanceOf(SourceError);
    expect(refused.message).toBe("Mailbox: The mail server 127.0.0.1 could not be reached.");
    // Nothing listening on the port: the same words.
    const save = (port: number) =>
      call("/api/integrations/sources", {
        body: { kind: "imap", host: dovecot.host, port, tls: false, username: "crew", password: PASSWORD },
      });
    expect((await save(await freePort())).status).toBe(200);
    const unreachable = await readSourcesFor(deps, s.org.id, "inbox", LIMITS).catch((e) => e);
    expect(unreachable).toBeInstanceOf(SourceError);
    expect(unreachable.message).toBe(refused.message);
    const missingFolder = await call("/api/integrations/sources", {
      body: { kind: "imap", host: dovecot.host, port: dovecot.port, tls: false, username: "crew", password: PASSWORD, folder: "Nope" },
    });
    expect(missingFolder.status).toBe(200);
    const folder = await readSourcesFor(deps, s.org.id, "inbox", LIMITS).catch((e) => e);
    expect(folder.message).toBe('Mailbox: The folder "Nope" was not found in the mailbox.');
    expect((await save(dovecot.port)).status).toBe(200);
    await readSourcesFor(deps, s.org.id, "inbox", LIMITS);
    expect(await openOrgAlert(s.db, s.org.id, "imap")).toBeNull();
  });

  it("a server that answers but ends the sign-in, or speaks no TLS, is never 'could not be reached'", async () => {
    const save = (body: Record<string, unknown>) =>
      call("/api/integrations/sources", {
        body: { kind: "imap", host: dovecot.host, port: dovecot.port, tls: false, username: "crew", password: PASSWORD, ...body },
      });
    // TLS asked of Dovecot's plaintext port: the TCP connection works, the handshake does not.
    expect((await save({ tls: true })).status).toBe(200);
    const tls = await readSourcesFor(deps, s.org.id, "inbox", LIMITS).catch((e) => e);
    expect(tls).toBeInstanceOf(SourceError);
    expect(tls.message).toBe(
      `Mailbox: The mail server ${dovecot.host} answered on port ${dovecot.port}, but not with TLS: turn TLS off (STARTTLS is used when offered) or use the IMAPS port, usually 993.`,
    );
    // A scripted IMAP peer (a stand-in for a provider that drops the connection at LOGIN, as one
    // does for an account without IMAP): it greets, then closes the connection on the login.
    const peer = createServer((socket) => {
      socket.write("* OK [CAPABILITY IMAP4rev1] ready\r\n");
      socket.on("data", (chunk) => {
        const [tag, command] = String(chunk).split(" ");
        if (/^CAPABILITY/i.test(command ?? "")) socket.write(`* CAPABILITY IMAP4rev1\r\n${tag} OK done\r\n`);
        else if (/^(LOGIN|AUTHENTICATE)/i.test(command ?? "")) socket.end("* BYE sign-in is not allowed for this account\r\n");
        else socket.write(`${tag} BAD unknown\r\n`);
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
    try {
      expect((await save({ port: (peer.address() as AddressInfo).port })).status).toBe(200);
      const ended = await readSourcesFor(deps, s.org.id, "inbox", LIMITS).catch((e) => e);
      expect(ended).toBeInstanceOf(SourceError);
      expect(ended.message).not.toMatch(/could not be reached/);
      expect(ended.message).toMatch(/^Mailbox: The mail server 127\.0\.0\.1 answered but ended the sign-in/);
      expect(ended.message).toMatch(/app password/);
    } finally {
      peer.close();
    }
    expect((await save({})).status).toBe(200);
    await readSourcesFor(deps, s.org.id, "inbox", LIMITS);
    expect(await openOrgAlert(s.db, s.org.id, "imap")).toBeNull();
  });

  it("resolves a host name through the policy and connects to the address it vetted", async () => {
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return ["127.0.0.1"];
    };
    const named = { ...deps, policy: { allowPrivate: true, resolve } };
    const saved = await call("/api/integrations/sources", {
      body: { kind: "imap", host: "mail.crew-test.invalid", port: dovecot.port, tls: false, username: "crew", password: PASSWORD },
    });
    expect(saved.status).toBe(200);
    // The name exists nowhere but in the policy's resolver: reading works only through the vetted address.
    const read = await readSourcesFor(named, s.org.id, "inbox", LIMITS);
    expect(asked).toEqual(["mail.crew-test.invalid"]);
    expect(read.items.length).toBeGreaterThan(0);
    const strict = { ...deps, policy: { allowPrivate: false, resolve: async () => ["10.0.0.8"] } };
    const refused = await readSourcesFor(strict, s.org.id, "inbox", LIMITS).catch((e) => e);
    expect(refused.message).toBe("Mailbox: The mail server mail.crew-test.invalid could not be reached.");
    await readSourcesFor(named, s.org.id, "inbox", LIMITS);
  });

  it("never writes the password into a log line", () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(PASSWORD);
    expect(logLines.join("\n")).not.toContain("wrong-password-Kx2");
  });

  it("deleting the mailbox forgets it and its password", async () => {
    const id = (await call("/api/integrations/sources")).json.sources[0].id;
    expect((await call(`/api/integrations/sources/${id}`, { method: "DELETE" })).json).toEqual({ ok: true });
    expect((await s.db.execute("SELECT COUNT(*) AS n FROM sources")).rows[0]?.n).toBe(0);
    expect((await readSourcesFor(deps, s.org.id, "inbox", LIMITS)).missing).toMatch(/Needs a mailbox/);
  });
});
