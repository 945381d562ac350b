/**
 * Sign-in under a flood (src/docs/notes/web-and-accounts.md): password hashing is bounded per process and attempts per
 * client address, so invented emails get fast 429s while a real user still signs in. Real server;
 * TRUSTED_PROXY lets the test speak for several client addresses from loopback, as a reverse
 * proxy would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HASHING_AT_ONCE, HASHING_WAITING, hashPassword, PasswordHashingBusy, verifyPassword } from "../../src/auth/passwords.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

let proxied: TestServer;
let direct: TestServer;

beforeAll(async () => {
  [proxied, direct] = await Promise.all([startServer({ env: { TRUSTED_PROXY: "127.0.0.1" } }), startServer()]);
});
afterAll(async () => {
  await Promise.all([proxied?.close(), direct?.close()]);
});

function signIn(s: TestServer, email: string, password: string, forwardedFor?: string) {
  return fetch(`${s.url}/api/auth/sign-in`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      origin: s.url,
      ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
    },
    body: JSON.stringify({ email, password }),
  });
}

describe("issue 11 item 4: sign-in under a flood of invented emails", () => {
  it("answers the flood from one address with fast 429s while a real user from another address signs in", async () => {
    const user = await proxied.createUser();
    const flood = Array.from({ length: 32 }, (_, i) => signIn(proxied, `nobody-${i}@example.com`, "guess", "198.51.100.7, 203.0.113.9"));
    const real = signIn(proxied, user.email, TEST_PASSWORD, "192.0.2.44");
    const [answers, mine] = await Promise.all([Promise.all(flood), real]);
    expect(mine.status).toBe(200);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(32 - 4);
    expect(answers.filter((r) => r.status !== 429).every((r) => r.status === 401)).toBe(true);
    const body = await limited[0]?.json();
    expect(body).toMatchObject({ error: "rate_limited" });
    expect(limited[0]?.headers.get("retry-after")).toBe("1");
  });

  it("a flood from 3 addresses leaves a 4th address's correct sign-in working: a fair share each, busy counted", async () => {
    const user = await proxied.createUser();
    const flooders = ["198.51.100.21", "198.51.100.22", "198.51.100.23"];
    let flooding = true;
    const flood = flooders.map(async (address, a) => {
      const statuses: number[] = [];
      for (let round = 0; flooding && round < 6; round++) {
        const wave = Array.from({ length: 8 }, (_, i) => signIn(proxied, `invented-${a}-${round}-${i}@example.com`, "guess", address));
        statuses.push(...(await Promise.all(wave)).map((r) => r.status));
      }
      return statuses;
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the flood holds the gate first
    const mine = await signIn(proxied, user.email, TEST_PASSWORD, "192.0.2.45");
    flooding = false;
    const answers = (await Promise.all(flood)).flat();
    expect(mine.status).toBe(200);
    expect(answers.every((status) => status === 401 || status === 429)).toBe(true);
  });

  it("ignores X-Forwarded-For unless the peer is a TRUSTED_PROXY (the default: the socket address)", async () => {
    const flood = Array.from({ length: 12 }, (_, i) => signIn(direct, `nobody-${i}@example.com`, "guess", `203.0.113.${i}`));
    const answers = await Promise.all(flood);
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(12 - 4);
  });

  it("bounds concurrent password hashing in the process: beyond the line, busy at once", async () => {
    const stored = await hashPassword("correct horse");
    const attempts = Array.from({ length: HASHING_AT_ONCE + HASHING_WAITING + 6 }, () =>
      verifyPassword("wrong", stored).then(
        () => "checked",
        (e) => (e instanceof PasswordHashingBusy ? "busy" : "other"),
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === "busy")).toHaveLength(6);
    expect(outcomes.filter((o) => o === "checked")).toHaveLength(HASHING_AT_ONCE + HASHING_WAITING);
    expect(await verifyPassword("correct horse", stored)).toBe(true); // the gate frees up
  });
});
