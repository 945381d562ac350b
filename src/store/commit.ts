/**
 * One way to commit a write with consequences. The write's statements and the webhook outbox
 * rows of its domain events run as one transaction: an event is recorded exactly when its write
 * commits (SPEC §9), and the subscriptions wanting it are read inside that transaction (the
 * outbox row is an INSERT … SELECT), so a subscription added meanwhile is not missed. The domain
 * events go to `emit` only after the commit (PocketBase's after-commit hooks), never for a write
 * that rolled back.
 */
import type { InStatement } from "@libsql/client";
import { type DomainEvent, webhookEventOf } from "../domain.ts";
import type { Db, StatementResult } from "./db.ts";
import { outboxStatement } from "./webhooks.ts";

export async function commit(
  db: Db,
  statements: InStatement[],
  events: readonly DomainEvent[],
  emit: (event: DomainEvent) => void,
): Promise<StatementResult[]> {
  const outbox = events.flatMap((event) => {
    const payload = webhookEventOf(event);
    return payload ? [outboxStatement(event.orgId, payload, event.at)] : [];
  });
  const results = await db.batch([...statements, ...outbox], "write");
  for (const event of events) emit(event);
  return results;
}
