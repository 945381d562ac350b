/**
 * `notifications/cancelled` for the 2025 revisions over stateless HTTP: the cancellation travels on
 * another HTTP request than the request it cancels, so it reaches another per-request server
 * (src/mcp/server.ts). This process-wide registry is where the two meet: each 2025-era request
 * runs under `run()` (its caller's key and the client's JSON-RPC id), and the cancellation handler
 * of any request calls `cancel()` with the same pair.
 *
 * The id is the client's choice, so a cancellation applies only to requests of the same caller
 * (the credential, `callerKey`): one caller can never cancel another's request that happens to
 * share its id. A request in flight is answered at once with CANCELLED (its work sees the signal;
 * whatever it answers later goes nowhere). A cancellation that overtook its request is kept for
 * CANCEL_MEMORY_MS, once, and that request is then answered the same way without being performed
 * (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions).
 */
import type { RequestId } from "@modelcontextprotocol/server";
import { protocolError } from "./protocol-error.ts";

/** How long a cancellation that arrived before its request is remembered, and how many at most. */
export const CANCEL_MEMORY_MS = 10_000;
const MAX_REMEMBERED_CANCELS = 10_000;

/** -32800 is LSP's RequestCancelled (the MCP SDKs' RequestTimeout family uses -32001). */
export const CANCELLED_CODE = -32800;
const CANCELLED_MESSAGE = "Request cancelled by the client; nothing was performed after the cancellation.";
const cancelled = () => protocolError(CANCELLED_CODE, CANCELLED_MESSAGE);

const keyOf = (callerKey: string, id: RequestId) => `${callerKey}\u0000${typeof id}:${String(id)}`;

export class Cancellations {
  /** Requests in flight: caller and client id → what aborts it. */
  readonly #inFlight = new Map<string, AbortController>();
  /** Cancellations that arrived before their request: key → when they stop counting. */
  readonly #early = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Requests in flight (for tests: every answered request is forgotten). */
  get pending(): number {
    return this.#inFlight.size;
  }

  /**
   * Runs one request of `callerKey` with the client's id `id`. Rejects with CANCELLED without
   * calling `work` when a cancellation came first, and at once when one comes while it runs.
   */
  async run<T>(callerKey: string, id: RequestId, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const key = keyOf(callerKey, id);
    if (this.#takeEarly(key)) throw cancelled();
    const abort = new AbortController();
    this.#inFlight.set(key, abort);
    const stopped = new Promise<never>((_, reject) => {
      abort.signal.addEventListener("abort", () => reject(cancelled()), { once: true });
    });
    try {
      return await Promise.race([work(abort.signal), stopped]);
    } finally {
      if (this.#inFlight.get(key) === abort) this.#inFlight.delete(key);
    }
  }

  /** A caller's cancellation of its request `id`: aborts it if in flight, else remembers it for a while. */
  cancel(callerKey: string, id: RequestId): void {
    const key = keyOf(callerKey, id);
    const running = this.#inFlight.get(key);
    if (running) {
      this.#inFlight.delete(key);
      running.abort();
      return;
    }
    const now = this.now();
    if (this.#early.size >= MAX_REMEMBERED_CANCELS) {
      for (const [k, until] of this.#early) if (until <= now || this.#early.size >= MAX_REMEMBERED_CANCELS) this.#early.delete(k);
    }
    this.#early.set(key, now + CANCEL_MEMORY_MS);
  }

  #takeEarly(key: string): boolean {
    if (this.#early.size === 0) return false;
    const until = this.#early.get(key);
    if (until === undefined) return false;
    this.#early.delete(key);
    return until > this.now();
  }
}
