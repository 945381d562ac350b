/**
 * A real CalDAV server for tests: Debian's Radicale 3.1.8 (`/usr/bin/python3 -m radicale`) on a
 * free loopback port, htpasswd users in plain text (src/docs/notes/testing.md#real-peers: starts in ~150 ms), storage in a
 * temp folder. Ready when it answers HTTP (polled, never a fixed sleep). It fails loudly when
 * Radicale cannot be started: a calendar test that silently skipped would prove nothing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBase64 } from "@oslojs/encoding";
import { makeCalendar } from "tsdav";
import { freePort } from "./spawn.ts";

export interface Radicale {
  /** Server root, e.g. http://127.0.0.1:5232 (what a user types into "CalDAV URL"). */
  url: string;
  /** Sets (or adds) a user's password; Radicale reads the htpasswd file on every login. */
  setPassword(user: string, password: string): void;
  /** Creates a calendar collection for the user (none exists by default) and returns its URL. */
  makeCalendar(user: string, password: string, slug?: string, name?: string): Promise<string>;
  /** PUTs a raw iCalendar object into a calendar collection. */
  putEvent(calendarUrl: string, user: string, password: string, uid: string, ics: string): Promise<void>;
  /** The raw iCalendar objects of a collection (every object, however old). */
  listEvents(calendarUrl: string, user: string, password: string): Promise<string[]>;
  stop(): Promise<void>;
}

export const basicAuth = (user: string, password: string) => ({
  Authorization: `Basic ${encodeBase64(new TextEncoder().encode(`${user}:${password}`))}`,
});

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startRadicale(users: Record<string, string>, timeoutMs = 15_000): Promise<Radicale> {
  const dir = mkdtempSync(join(tmpdir(), "crew-radicale-"));
  const htpasswd = join(dir, "users");
  const passwords = { ...users };
  const writeUsers = () =>
    writeFileSync(
      htpasswd,
      Object.entries(passwords)
        .map(([u, p]) => `${u}:${p}\n`)
        .join(""),
    );
  writeUsers();
  const port = await freePort();
  const config = join(dir, "config");
  writeFileSync(
    config,
    [
      "[server]",
      `hosts = 127.0.0.1:${port}`,
      "[auth]",
      "type = htpasswd",
      `htpasswd_filename = ${htpasswd}`,
      "htpasswd_encryption = plain",
      // Radicale sleeps up to a second after a failed login by default: tests log in wrongly on purpose.
      "delay = 0",
      "[rights]",
      "type = owner_only",
      "[storage]",
      `filesystem_folder = ${join(dir, "collections")}`,
      "[web]",
      "type = none",
      "[logging]",
      "level = warning",
      "",
    ].join("\n"),
  );
  // Debian's Python explicitly: the python3 on PATH may be another build without the module.
  const child = spawn("/usr/bin/python3", ["-m", "radicale", "-C", config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  let spawnError: Error | null = null;
  child.once("error", (error) => {
    spawnError = error;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError || child.exitCode !== null) {
      await stop();
      throw new Error(`Radicale could not be started (/usr/bin/python3 -m radicale): ${spawnError ?? `exit ${child.exitCode}`} ${stderr}`);
    }
    try {
      const res = await fetch(`${url}/`, { method: "OPTIONS" });
      await res.arrayBuffer();
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Radicale at ${url} did not answer within ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  return {
    url,
    setPassword(user, password) {
      passwords[user] = password;
      writeUsers();
    },
    async makeCalendar(user, password, slug = "work", name = "Work") {
      const calendarUrl = `${url}/${user}/${slug}/`;
      const [res] = await makeCalendar({
        url: calendarUrl,
        props: {
          "d:displayname": name,
          "c:supported-calendar-component-set": { "c:comp": { _attributes: { name: "VEVENT" } } },
        },
        headers: basicAuth(user, password),
      });
      if (!res?.ok) throw new Error(`MKCALENDAR ${calendarUrl} failed: ${res?.status} ${res?.statusText}`);
      return calendarUrl;
    },
    async putEvent(calendarUrl, user, password, uid, ics) {
      const res = await fetch(`${calendarUrl}${uid}.ics`, {
        method: "PUT",
        headers: { ...basicAuth(user, password), "Content-Type": "text/calendar; charset=utf-8" },
        body: ics,
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`PUT ${uid}.ics failed: ${res.status}`);
    },
    async listEvents(calendarUrl, user, password) {
      // Radicale answers GET on a calendar collection with the whole calendar as one iCalendar text.
      const res = await fetch(calendarUrl, { headers: basicAuth(user, password) });
      const text = await res.text();
      if (!res.ok) throw new Error(`GET ${calendarUrl} failed: ${res.status}`);
      return text.split("BEGIN:VEVENT").slice(1);
    },
    stop,
  };
}
