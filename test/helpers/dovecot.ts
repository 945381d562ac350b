/**
 * A real IMAP server for tests: Debian's Dovecot (`dovecot-imapd`, `/usr/sbin/dovecot -F -c …`)
 * as this test's own instance (own base_dir, state_dir, instance_name, log) on a free loopback
 * port, plaintext logins allowed (loopback only), one maildir. Passwords in a passwd-file that
 * Dovecot re-reads when it changes. Messages are written straight into the maildir
 * (src/docs/notes/testing.md#real-peers "IMAP with Dovecot"). Ready when the IMAP greeting arrives (polled, never a fixed
 * sleep); fails loudly when Dovecot cannot be started.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./spawn.ts";

export interface Dovecot {
  host: string;
  port: number;
  user: string;
  setPassword(password: string): void;
  /** Writes a message into INBOX (maildir `cur/` with the given flags, e.g. "F" for \Flagged; "" for none). */
  /** `headers`: extra header lines (e.g. "List-Unsubscribe: <…>"). */
  deliver(message: { from: string; to?: string; subject: string; body: string; date?: Date; flags?: string; headers?: string[] }): void;
  /** The maildir file names of INBOX (their `:2,` suffix holds the flags). */
  files(): string[];
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let text = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.on("data", (chunk) => {
      text += String(chunk);
      if (text.includes("\r\n")) done(text.startsWith("* OK"));
    });
    socket.on("error", () => done(false));
    socket.setTimeout(2000, () => done(false));
  });
}

/** The uid/gid the mail files must belong to: `dovecot` when we are root, else ourselves. */
function mailOwner(): { user: string; uid: number; gid: number } {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username, uid: me.uid, gid: me.gid };
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("dovecot:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (!uid || !gid) throw new Error("no dovecot user in /etc/passwd: is dovecot-imapd installed?");
  return { user: "dovecot", uid: Number(uid), gid: Number(gid) };
}

let counter = 0;

export async function startDovecot(user: string, password: string, timeoutMs = 15_000): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), "crew-dovecot-"));
  chmodSync(dir, 0o755);
  const owner = mailOwner();
  const home = join(dir, "home");
  const maildir = join(home, "Maildir");
  for (const sub of ["cur", "new", "tmp"]) mkdirSync(join(maildir, sub), { recursive: true });
  const chownTree = (path: string) => {
    chownSync(path, owner.uid, owner.gid);
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) chownTree(join(path, entry.name));
      else chownSync(join(path, entry.name), owner.uid, owner.gid);
    }
  };
  chownTree(home);
  const passwd = join(dir, "passwd");
  const setPassword = (pw: string) => writeFileSync(passwd, `${user}:{PLAIN}${pw}::::::\n`, { mode: 0o644 });
  setPassword(password);
  const port = await freePort();
  const conf = join(dir, "dovecot.conf");
  const notRoot = owner.user !== "dovecot" ? [`default_internal_user = ${owner.user}`, `default_login_user = ${owner.user}`] : [];
  writeFileSync(
    conf,
    [
      `base_dir = ${join(dir, "run")}`,
      `state_dir = ${join(dir, "state")}`,
      `instance_name = crew-test-${process.pid}-${++counter}`,
      `log_path = ${join(dir, "dovecot.log")}`,
      ...notRoot,
      // Debian's default first_valid_uid (500) refuses the system user `dovecot` that owns the mail here.
      `first_valid_uid = ${owner.uid}`,
      `first_valid_gid = ${owner.gid}`,
      "protocols = imap",
      "listen = 127.0.0.1",
      "ssl = no",
      "disable_plaintext_auth = no",
      "auth_mechanisms = plain login",
      // Tests log in wrongly on purpose: no 2 s penalty per failure.
      "auth_failure_delay = 0",
      `mail_location = maildir:${maildir}`,
      "passdb {",
      "  driver = passwd-file",
      `  args = scheme=PLAIN ${passwd}`,
      "}",
      "userdb {",
      "  driver = static",
      `  args = uid=${owner.uid} gid=${owner.gid} home=${home}`,
      "}",
      "service imap-login {",
      `  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }`,
      "  inet_listener imaps {\n    port = 0\n  }",
      "}",
      "service stats {\n  inet_listener http {\n    port = 0\n  }\n}",
      "service anvil {\n  chroot =\n}",
      "",
    ].join("\n"),
  );
  const child = spawn("/usr/sbin/dovecot", ["-F", "-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  let spawnError: Error | null = null;
  child.once("error", (error) => {
    spawnError = error;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const log = () => {
    try {
      return readFileSync(join(dir, "dovecot.log"), "utf8").slice(-2000);
    } catch {
      return "";
    }
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError || child.exitCode !== null) {
      const why = `${spawnError ?? `exit ${child.exitCode}`} ${stderr} ${log()}`;
      await stop();
      throw new Error(`Dovecot could not be started (/usr/sbin/dovecot): ${why}`);
    }
    if (await greets(port)) break;
    if (Date.now() > deadline) {
      const why = `${stderr} ${log()}`;
      await stop();
      throw new Error(`Dovecot on port ${port} did not greet within ${timeoutMs} ms: ${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  let sequence = 0;
  return {
    host: "127.0.0.1",
    port,
    user,
    setPassword,
    deliver({ from, to = `${user}@example.com`, subject, body, date = new Date(), flags = "", headers = [] }) {
      const text = [
        `From: ${from}`,
        `To: ${to}`,
        `Subject: ${subject}`,
        `Date: ${date.toUTCString()}`,
        `Message-ID: <m${++sequence}.${port}@example.com>`,
        ...headers,
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "",
        body,
        "",
      ].join("\r\n");
      const name = join(maildir, "cur", `${Math.floor(date.getTime() / 1000)}.M${sequence}P${process.pid}.crew-test:2,${flags}`);
      writeFileSync(name, text);
      chownSync(name, owner.uid, owner.gid);
    },
    files: () =>
      readdirSync(join(maildir, "cur"))
        .concat(readdirSync(join(maildir, "new")))
        .sort(),
    stop,
  };
}
