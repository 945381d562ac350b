/**
 * One way to commit a write with consequences. The write's statements and the webhook outbox
 * rows of its domain events run as one transaction: an event is recorded exactly when its write
 * commits (src/docs/notes/architecture.md#writes-commit-and-events), and the subscriptions wanting it are read inside that transaction (the
 * outbox row is an INSERT … SELECT), so a subscription added meanwhile is not missed. The domain
 * events go to `emit` only after the commit (PocketBase's after-commit hooks), never for a write
 * that rolled back.
 */
import type { InStatement } from "@libsql/client";
import { type DomainEvent, webhookEventOf } from "../domain.ts";
import type { Condition, Db, StatementResult } from "./db.ts";
import { outboxStatement } from "./delivery/webhooks.ts";

/**
 * `onlyIf`: a write that may happen once only (two "Make it an action" at once). Its first
 * statement is a conditional claim, its other statements are written to hold `onlyIf` (true
 * inside the transaction exactly when this claim won); the outbox rows hold it too, and the events
 * are emitted only when it held at the end of the transaction. A lost claim writes nothing.
 */
export async function commit(
  db: Db,
  statements: InStatement[],
  events: readonly DomainEvent[],
  emit: (event: DomainEvent) => void,
  onlyIf?: Condition,
): Promise<StatementResult[]> {
  const outbox = events.flatMap((event) => {
    const payload = webhookEventOf(event);
    return payload ? [outboxStatement(event.orgId, payload, event.at, onlyIf)] : [];
  });
  const check = onlyIf ? [{ sql: `SELECT 1 AS held WHERE ${onlyIf.sql}`, args: onlyIf.args }] : [];
  const results = await db.batch([...statements, ...outbox, ...check], "write");
  if (onlyIf && results.at(-1)?.rows.length === 0) return results;
  for (const event of events) emit(event);
  return results;
}
