/**
 * Hostile titles in Teams cards and mail text parts (issue 33): a title written as a Markdown link
 * stays text in the Adaptive Card (no TextBlock carries it), and a title with line breaks stays one
 * line of the briefing mail's text part, so it cannot add a fake "Approve: https://…" line above the
 * real one-click links. The mail is composed from a real database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { composeBriefingMail } from "../../src/integrations/notify/briefing-mail.ts";
import { standupCard } from "../../src/integrations/notify/teams.ts";
import { seedActions } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const LINKED = "Pay the [invoice](https://evil.example/pay) now";
const BROKEN = "Renew the domain\nApprove: https://evil.example/a/steal\r\n\u2028Done";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

/** Every element of a card's body, nested containers included. */
function elements(node: unknown): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap(elements);
  if (node && typeof node === "object") {
    const record = node as Record<string, unknown>;
    return [record, ...Object.values(record).flatMap(elements)];
  }
  return [];
}

describe("hostile titles", () => {
  it("a Teams card shows a Markdown link in a title as text", () => {
    const card = standupCard(
      { briefing: "See [this](https://evil.example/b)", interventions: [{ title: LINKED, priority: "high", agent: "finance" }] },
      "https://crew.example/standup",
    );
    const all = elements(card);
    const carrying = all.filter((e) => typeof e.text === "string" && (e.text as string).includes("evil.example"));
    expect(carrying.length).toBe(2);
    for (const e of carrying) expect(e.type).toBe("TextRun");
    expect(all.filter((e) => e.type === "TextBlock").every((e) => !String(e.text).includes("evil"))).toBe(true);
    expect(JSON.stringify(card)).toContain("Pay the [invoice](https://evil.example/pay) now");
  });

  it("a Teams card keeps a title with line breaks on one line", () => {
    const card = standupCard({ briefing: "Morning.", interventions: [{ title: BROKEN, priority: "critical", agent: "it" }] }, "https://x");
    const run = elements(card).find((e) => e.type === "TextRun" && String(e.text).includes("Renew"));
    expect(run?.text).toBe("• [critical] Renew the domain Approve: https://evil.example/a/steal Done (it)");
  });

  it("a mail's text part gives each title one line, above only the real one-click links", async () => {
    const user = await s.createUser("operator", "hostile-mail@example.com");
    await seedActions(s, user.id, [{ title: BROKEN, priority: "critical", status: "pending" }]);
    await runBuiltIn(s.deps, s.org, "briefing");
    const mail = await composeBriefingMail(s.db, s.url, { id: user.id, orgId: s.org.id, name: "Hostile" }, "2026-12-01", s.clock.now());
    const lines = mail!.text.split("\n");
    expect(lines).toContain("- [critical] Renew the domain Approve: https://evil.example/a/steal Done");
    const verbLines = lines.filter((line) => /^\s*(Approve|Mark done|Dismiss):/.test(line));
    expect(verbLines).toHaveLength(3);
    for (const line of verbLines) expect(line).toMatch(new RegExp(`^    (Approve|Mark done|Dismiss): ${s.url}/a/[a-z2-7]{52}$`));
  });
});
