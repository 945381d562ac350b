/**
 * The libSQL client. Local files run in WAL mode with synchronous=NORMAL (≈6× the write
 * throughput of the default, see FIELD-NOTES) and a busy timeout, so several processes can share
 * one file. Nothing else in the store depends on the database being a local file.
 */
import { type Client, createClient, type InArgs, type Row } from "@libsql/client";
import Database from "libsql";

export type Db = Client;

export interface OpenOptions {
  url: string;
  authToken?: string;
  busyTimeoutMs?: number;
}

export async function openDb({ url, authToken, busyTimeoutMs = 10_000 }: OpenOptions): Promise<Db> {
  const db = createClient({ url, authToken, timeout: busyTimeoutMs, intMode: "number" });
  if (url.startsWith("file:")) {
    await db.execute("PRAGMA journal_mode = WAL");
    await db.execute("PRAGMA synchronous = NORMAL");
    await db.execute("PRAGMA foreign_keys = ON");
    openHotConnection(db, url, busyTimeoutMs);
  }
  return db;
}

/**
 * Statements run on every protected request (credential lookup, quota) go through one extra
 * connection to a local file with each statement prepared once: @libsql/client prepares every
 * statement anew and reads its columns twice, ≈ 10× the cost of running a prepared one (see README
 * `bench`). It is an ordinary connection to the same WAL file: every statement on it is atomic
 * on its own and sees every commit made before it, by this process or another, so nothing about
 * what the store guarantees changes. Remote databases (and `:memory:`) use the client as before.
 */
interface HotConnection {
  conn: Database.Database;
  statements: Map<string, Database.Statement>;
}

const hotConnections = new WeakMap<Db, HotConnection>();

function openHotConnection(db: Db, url: string, busyTimeoutMs: number): void {
  let path = url.slice("file:".length).split("?")[0] ?? "";
  if (path.startsWith("//")) path = path.slice(2);
  if (path === "" || path.includes(":memory:")) return;
  const conn = new Database(path, { timeout: busyTimeoutMs });
  conn.exec("PRAGMA synchronous = NORMAL");
  conn.exec("PRAGMA foreign_keys = ON");
  hotConnections.set(db, { conn, statements: new Map() });
  const close = db.close.bind(db);
  db.close = () => {
    conn.close();
    close();
  };
}

/** Runs a hot-path statement (prepared once per connection) and returns its rows as plain objects. */
export async function allHot<T>(db: Db, sql: string, args: unknown[]): Promise<T[]> {
  const hot = hotConnections.get(db);
  if (!hot) return all<T>(db, sql, args as InArgs);
  let statement = hot.statements.get(sql);
  if (!statement) {
    statement = hot.conn.prepare(sql);
    hot.statements.set(sql, statement);
  }
  return statement.all(args) as T[];
}

/** Runs one statement and returns its rows as plain objects of the given shape. */
export async function all<T>(db: Db, sql: string, args: InArgs = []): Promise<T[]> {
  const result = await db.execute({ sql, args });
  return result.rows as unknown as T[];
}

export async function one<T>(db: Db, sql: string, args: InArgs = []): Promise<T | null> {
  const rows = await all<T>(db, sql, args);
  return rows[0] ?? null;
}

export async function run(db: Db, sql: string, args: InArgs = []): Promise<number> {
  const result = await db.execute({ sql, args });
  return result.rowsAffected;
}

export function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== "string") return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

export type { Row };
