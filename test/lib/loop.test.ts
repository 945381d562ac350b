/** The periodic-loop helper: passes never overlap; a run asked for during a pass is one more pass after it. */
import { describe, expect, it } from "vitest";
import { startLoop } from "../../src/lib/loop.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("startLoop", () => {
  it("runs one more pass for any number of runs asked during a pass, never two at once", async () => {
    const first = gate();
    let passes = 0;
    let inPass = 0;
    let maxInPass = 0;
    const loop = startLoop(
      async () => {
        inPass += 1;
        maxInPass = Math.max(maxInPass, inPass);
        passes += 1;
        if (passes === 1) await first.opened;
        inPass -= 1;
      },
      { onError: () => {} },
    );
    const a = loop.run();
    await Promise.resolve();
    const b = loop.run();
    const c = loop.run();
    expect(b).toBe(c); // joined the queued pass
    first.open();
    await Promise.all([a, b, c]);
    expect(passes).toBe(2);
    expect(maxInPass).toBe(1);
    await loop.stop();
  });

  it("reports a failing pass and keeps running later ones", async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const loop = startLoop(
      async () => {
        passes += 1;
        if (passes === 1) throw new Error("boom");
      },
      { onError: (error) => errors.push(error) },
    );
    await loop.run();
    await loop.run();
    expect(passes).toBe(2);
    expect(errors.map(String)).toEqual(["Error: boom"]);
    await loop.stop();
  });

  it("aborts the signal of a pass in progress on stop and waits for it", async () => {
    let seen: AbortSignal | null = null;
    let finished = false;
    const loop = startLoop(
      async (signal) => {
        seen = signal;
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
        finished = true;
      },
      { onError: () => {} },
    );
    void loop.run();
    await Promise.resolve();
    await Promise.resolve();
    await loop.stop();
    expect(seen).not.toBeNull();
    expect(finished).toBe(true);
  });
});
