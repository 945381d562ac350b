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
    openPreparedConnection(db, url, busyTimeoutMs);
  }
  return db;
}

/**
 * Single statements (`all`, `one`, `run`) on a local file go through one extra connection with
 * each statement prepared once: @libsql/client prepares every statement anew and reads its
 * columns twice, ≈ 10× the cost of running a prepared one (README `bench`). It is an ordinary
 * connection to the same WAL file; the local driver runs every statement synchronously, so no
 * two statements of one process ever overlap, each is atomic on its own and sees every commit
 * made before it, by this process or another. Multi-statement writes keep using `db.batch()`
 * (one transaction on the client's connection). Remote databases use the client throughout.
 */
interface PreparedConnection {
  conn: Database.Database;
  statements: Map<string, Database.Statement>;
}

/** Dynamic SQL (filters, IN lists) makes a bounded but open set of texts: start over past this. */
const MAX_PREPARED = 500;

const preparedConnections = new WeakMap<Db, PreparedConnection>();

function openPreparedConnection(db: Db, url: string, busyTimeoutMs: number): void {
  let path = url.slice("file:".length).split("?")[0] ?? "";
  if (path.startsWith("//")) path = path.slice(2);
  if (path === "" || path.includes(":memory:")) return;
  const conn = new Database(path, { timeout: busyTimeoutMs });
  conn.exec("PRAGMA synchronous = NORMAL");
  conn.exec("PRAGMA foreign_keys = ON");
  preparedConnections.set(db, { conn, statements: new Map() });
  const close = db.close.bind(db);
  db.close = () => {
    conn.close();
    close();
  };
}

function prepared(db: Db, sql: string): Database.Statement | null {
  const connection = preparedConnections.get(db);
  if (!connection) return null;
  let statement = connection.statements.get(sql);
  if (!statement) {
    if (connection.statements.size >= MAX_PREPARED) connection.statements.clear();
    statement = connection.conn.prepare(sql);
    connection.statements.set(sql, statement);
  }
  return statement;
}

/** The native driver binds numbers, strings, bigints, buffers and null; the client also took booleans. */
function bindable(args: InArgs): unknown[] {
  if (!Array.isArray(args)) throw new Error("store statements use positional arguments");
  return args.map((a) => (typeof a === "boolean" ? (a ? 1 : 0) : a === undefined ? null : a));
}

/** Runs one statement and returns its rows as plain objects of the given shape. */
export async function all<T>(db: Db, sql: string, args: InArgs = []): Promise<T[]> {
  const statement = prepared(db, sql);
  if (statement) return statement.all(bindable(args)) as T[];
  const result = await db.execute({ sql, args });
  return result.rows as unknown as T[];
}

export async function one<T>(db: Db, sql: string, args: InArgs = []): Promise<T | null> {
  const rows = await all<T>(db, sql, args);
  return rows[0] ?? null;
}

/** Runs a statement that returns no rows; resolves to the number of rows it changed. */
export async function run(db: Db, sql: string, args: InArgs = []): Promise<number> {
  const statement = prepared(db, sql);
  if (statement) return Number(statement.run(bindable(args)).changes);
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
