/**
 * src/docs/notes/running.md Shutdown on the Node entry (a real process): on SIGTERM a request already received is
 * answered, a connection accepted just before still gets its answer, an idle keep-alive connection
 * is closed at once, and the process stops its background tasks and closes the database before
 * exiting 0 — without waiting for the 10 s limit.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { databaseFileWithKey, ROOT } from "../helpers/cli.ts";
import { freePort } from "../helpers/spawn.ts";

let child: ChildProcess | null = null;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Resolves when `read()` satisfies `test`, re-checked on every chunk of `stream`. */
function until(stream: NodeJS.ReadableStream, read: () => string, test: (text: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (test(read())) {
        stream.off("data", check);
        resolve();
      }
    };
    stream.on("data", check);
    check();
  });
}

function open(port: number): Promise<{ socket: Socket; text: () => string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect(port, "127.0.0.1");
    const ended = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("data", (chunk) => {
      text += chunk.toString();
    });
    socket.once("error", reject);
    socket.once("connect", () => resolve({ socket, text: () => text, ended }));
  });
}

describe("issue 11 item 9: shutdown on SIGTERM", () => {
  it("answers requests received, closes idle keep-alive connections at once, stops tasks and closes the database, exit 0", async () => {
    const { dbUrl, cleanup } = await databaseFileWithKey("shutdown");
    const port = await freePort();
    const host = `127.0.0.1:${port}`;
    let stdout = "";
    let stderr = "";
    child = spawn(process.execPath, ["--import", "tsx", "src/serve.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: dbUrl,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: `http://${host}`,
        CREW_SECRET: "shutdown-test-secret-shutdown-test-secret",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // "close", not "exit": the exit can come before the last of stderr is read.
    const exited = new Promise<number | null>((resolve) => child?.once("close", (code) => resolve(code)));
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    try {
      await until(
        child.stdout as NodeJS.ReadableStream,
        () => stdout,
        (t) => t.includes("Crew is listening"),
      );

      // An idle keep-alive connection: one request answered, connection left open.
      const idle = await open(port);
      idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
      await until(idle.socket, idle.text, (t) => t.includes('{"ok":true}'));
      // A request received in part: headers and half its body.
      const partial = await open(port);
      const body = JSON.stringify({ email: "nobody@example.com", password: "x" });
      partial.socket.write(
        `POST /api/auth/sign-in HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      // A connection accepted whose request has not been sent yet.
      const fresh = await open(port);

      child.kill("SIGTERM");
      await until(
        child.stderr as NodeJS.ReadableStream,
        () => stderr,
        (t) => t.includes('"msg":"shutting down"'),
      );

      fresh.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      partial.socket.write(body.slice(10));
      await Promise.all([idle.ended, fresh.ended, partial.ended]);
      expect(fresh.text(), stderr).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(fresh.text().toLowerCase()).toContain("connection: close");
      expect(fresh.text()).toContain('{"ok":true}');
      expect(partial.text()).toMatch(/^HTTP\/1\.1 401 /);
      expect(idle.text().match(/HTTP\/1\.1 /g)).toHaveLength(1);

      expect(await exited).toBe(0);
      const lines = stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg: string; forced?: boolean });
      expect(lines.find((l) => l.msg === "shut down")).toMatchObject({ forced: false });
      expect(lines.filter((l) => l.msg === "background tasks stopped" || l.msg === "database closed").map((l) => l.msg)).toEqual([
        "background tasks stopped",
        "database closed",
      ]);
    } finally {
      cleanup();
    }
  }, 30_000);
});
