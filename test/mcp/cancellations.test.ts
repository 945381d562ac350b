/**
 * src/mcp/cancellations.ts, the home of 2025-era cancellations across stateless HTTP requests
 * (each request has its own server, so a `notifications/cancelled` reaches another one): a
 * cancellation (which names a client's id) reaches only the same caller's request, in flight or not
 * yet arrived; a cancelled request is answered at once and its work told; every answered request is
 * forgotten. The same over HTTP, with the real server: per-request-state.test.ts.
 */
import { describe, expect, it } from "vitest";
import { CANCEL_MEMORY_MS, CANCELLED_CODE, Cancellations } from "../../src/mcp/cancellations.ts";

/** A request's work that runs until released, recording that it started and what its signal said. */
function work(name: string) {
  let release = () => {};
  const seen = { started: false, aborted: false };
  const run = (signal: AbortSignal) => {
    seen.started = true;
    signal.addEventListener("abort", () => {
      seen.aborted = true;
    });
    return new Promise<string>((resolve) => {
      release = () => resolve(name);
    });
  };
  return { run, seen, release: () => release() };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (error: { code?: number }) => ({ error: error.code }),
  );
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("Cancellations", () => {
  it("runs two callers' requests with the same id each to its own answer, then forgets both", async () => {
    const registry = new Cancellations();
    const a = work("a");
    const b = work("b");
    const answers = [outcome(registry.run("key:a", 1, a.run)), outcome(registry.run("key:b", 1, b.run))];
    expect(registry.pending).toBe(2);
    a.release();
    b.release();
    expect(await Promise.all(answers)).toEqual([{ value: "a" }, { value: "b" }]);
    expect(registry.pending).toBe(0);
  });

  it("does not let one caller's cancellation reach another caller's request in flight", async () => {
    const registry = new Cancellations();
    const a = work("a");
    const answer = outcome(registry.run("key:a", 5, a.run));
    // Whatever id b names — a's, a string of it, another — nothing of a's is cancelled.
    for (const id of [5, "5", 1]) registry.cancel("key:b", id);
    await settle();
    expect(a.seen.aborted).toBe(false);
    a.release();
    expect(await answer).toEqual({ value: "a" });
  });

  it("issue 23 item 6: a caller's cancellation aborts its own request in flight and answers it at once", async () => {
    const registry = new Cancellations();
    const a = work("a");
    const answer = outcome(registry.run("key:a", 5, a.run));
    registry.cancel("key:a", 5);
    expect(await answer).toEqual({ error: CANCELLED_CODE });
    expect(a.seen.aborted).toBe(true);
    expect(registry.pending).toBe(0);
    a.release(); // the work's late answer goes nowhere
  });

  it("issue 23 item 6: a cancellation that overtook its request stops it before it starts, for that caller only, for a while", async () => {
    let now = 1_000;
    const registry = new Cancellations(() => now);
    registry.cancel("key:a", 9);
    const other = work("b");
    const others = outcome(registry.run("key:b", 9, other.run));
    const own = work("a");
    expect(await outcome(registry.run("key:a", 9, own.run))).toEqual({ error: CANCELLED_CODE });
    expect(own.seen.started).toBe(false);
    other.release();
    expect(await others).toEqual({ value: "b" });

    // Used up: the same id runs again.
    const again = work("a");
    const answered = outcome(registry.run("key:a", 9, again.run));
    again.release();
    expect(await answered).toEqual({ value: "a" });

    // Remembered for CANCEL_MEMORY_MS only.
    registry.cancel("key:a", 10);
    now += CANCEL_MEMORY_MS + 1;
    const late = work("a");
    const lateAnswer = outcome(registry.run("key:a", 10, late.run));
    late.release();
    expect(await lateAnswer).toEqual({ value: "a" });
    expect(registry.pending).toBe(0);
  });
});
