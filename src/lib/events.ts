/**
 * The event bus: domain events raised by operations after their write commits: the agents runtime regenerates
 * the standup and briefings from them, and the webhook outbox records them. Listeners must not
 * throw into the request; failures are logged.
 */
import type { DomainEvent } from "../domain.ts";

export type { DomainEvent };
export type Listener = (event: DomainEvent) => void | Promise<void>;

export interface Events {
  emit(event: DomainEvent): void;
  on(listener: Listener): () => void;
}

export function createEvents(onError: (error: unknown, event: DomainEvent) => void = () => {}): Events {
  const listeners = new Set<Listener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        Promise.resolve()
          .then(() => listener(event))
          .catch((error) => onError(error, event));
      }
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
