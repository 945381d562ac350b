/** Identifiers (issue 10 item 4): ULIDs drawn with one random call each, monotonic within a millisecond. */
import { decodeTime } from "ulid";
import { describe, expect, it } from "vitest";
import { monotonicUlid, newId } from "../../src/lib/random.ts";

describe("ulid", () => {
  it("is 26 Crockford base-32 characters whose first 10 encode the time", () => {
    // A generator of its own: the process's one has seen other test files' clocks (they share a worker).
    const ulid = monotonicUlid();
    const at = Date.UTC(2026, 10, 24, 2, 40, 1, 234);
    const id = ulid(at);
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(decodeTime(id)).toBe(at);
    expect(newId("req", at)).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("sorts in creation order within one millisecond and across milliseconds", () => {
    const ulid = monotonicUlid();
    const at = Date.UTC(2026, 10, 24, 3, 0, 0, 0);
    const ids = [...Array.from({ length: 1000 }, () => ulid(at)), ulid(at + 1), ulid(at + 1), ulid(at + 2)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // A clock stepping back keeps the order (the last time is kept, the random part incremented).
    const before = ulid(at + 3);
    expect(ulid(at) > before).toBe(true);
  });
});
