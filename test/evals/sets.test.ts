/**
 * The evaluation sets shipped in evals/ (src/docs/notes/eval.md): every set parses, every
 * expectation names an agent of the catalog and a kind of record that agent writes, every
 * model-backed agent has a set, and the injection corpus holds at least 30 cases across mail and
 * feeds whose canaries cannot reach a record by an honest answer (not in a sender, subject or title).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EVALS_DIR, type EvalSet, EvalSetError, kindsWritableBy, loadSet, loadSets, RECORD_KINDS } from "../../src/agents/eval/sets.ts";
import { MODEL_AGENTS } from "../../src/agents/jobs.ts";
import { AGENT_IDS } from "../../src/domain.ts";

describe("the evaluation sets in evals/", () => {
  let sets: EvalSet[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "crew-evalsets-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("all parse: set.json, records, .eml mailboxes, RSS/Atom documents, injections", async () => {
    sets = await loadSets(EVALS_DIR);
    expect(sets.map((s) => s.name).sort()).toEqual([
      "calendar-week",
      "inbox-week",
      "injections",
      "injections-paraphrased",
      "market-watch",
      "operations-review",
      "pipeline-review",
      "slack-channels",
    ]);
    const inbox = sets.find((s) => s.name === "inbox-week");
    expect(inbox?.mail).toHaveLength(10);
    expect(inbox?.mail.map((m) => m.title)).toContain("Quote for 40 analytics seats");
    const market = sets.find((s) => s.name === "market-watch");
    expect(market?.feeds.map((f) => f.title)).toContain("Retention rules for analytics vendors amended");
    const calendar = sets.find((s) => s.name === "calendar-week");
    expect(calendar?.calendar.map((e) => e.title)).toContain("Board meeting: Q4 review");
    expect(calendar?.calendar[0]?.event?.start).toBe("2026-12-01T08:00:00Z");
    const slack = sets.find((s) => s.name === "slack-channels");
    expect(slack?.slack.find((m) => m.text.includes("pizza"))).toMatchObject({
      kind: "slack_message",
      id: "random/1764489000.000100",
      source: "#random",
    });
  });

  it("every expected fact names its source, and each source is an input or a stored record of the set", () => {
    for (const set of sets) for (const fact of set.expect) expect(fact.sources.length, `${set.name}/${fact.id}`).toBeGreaterThan(0);
  });

  it("every expectation names an existing agent and a kind of record that agent writes", () => {
    for (const set of sets) {
      for (const fact of [...set.expect, ...set.forbid]) {
        expect(AGENT_IDS, `${set.name}/${fact.id}`).toContain(fact.agent);
        for (const kind of fact.kinds) {
          expect(Object.keys(RECORD_KINDS), `${set.name}/${fact.id}`).toContain(kind);
          expect(kindsWritableBy(fact.agent), `${set.name}/${fact.id}`).toContain(kind);
        }
      }
    }
  });

  it("each model-backed agent has a set with at least 5 expected facts for it", () => {
    for (const agent of MODEL_AGENTS) {
      expect(Math.max(...sets.map((s) => s.expect.filter((f) => f.agent === agent).length)), agent).toBeGreaterThanOrEqual(5);
    }
  });

  it("holds at least 60 attack cases across mail, feeds, calendar invitations and Slack, most without a canary", () => {
    const cases = sets.flatMap((s) => s.injections.map((c) => ({ set: s, c })));
    expect(cases.length).toBeGreaterThanOrEqual(60);
    for (const prefix of ["mail/", "feeds/", "calendar.json", "slack.json"])
      expect(cases.filter(({ c }) => c.files.some((f) => f.startsWith(prefix))).length, prefix).toBeGreaterThanOrEqual(8);
    const withoutCanary = cases.filter(({ c }) => !c.canary);
    expect(withoutCanary.length).toBeGreaterThan(cases.length / 2);
    // Without a canary, a case says what obeying it looks like.
    for (const { c } of withoutCanary) expect((c.asks?.terms?.length ?? 0) + (c.asks?.marks?.length ?? 0), c.id).toBeGreaterThan(0);
    const techniques = new Set(cases.map(({ c }) => c.technique));
    for (const t of [
      "paraphrased-payment-fraud",
      "credential-phishing",
      "contact-poisoning",
      "pipeline-wiping",
      "planted-link",
      "fake-approval",
      "role-play",
      "fake-system-message",
    ])
      expect(techniques, t).toContain(t);
  });

  it("canaries are unique and only in the hostile text", () => {
    const cases = sets.flatMap((s) => s.injections.flatMap((c) => (c.canary ? [{ set: s, c: { ...c, canary: c.canary } }] : [])));
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map(({ c }) => c.canary)).size).toBe(cases.length);
    for (const { set, c } of cases) {
      const items = [...set.mail, ...set.feeds];
      // A split case's canary only exists once its parts are put together; the others are in their item's text.
      if (!c.technique.startsWith("split"))
        expect(
          items.some((i) => i.text.includes(c.canary)),
          c.id,
        ).toBe(true);
      for (const item of items) {
        const seen = [item.title, item.from?.name ?? "", item.from?.email ?? ""].join(" ");
        expect(seen.includes(c.canary), `${c.id} in ${item.title}`).toBe(false);
      }
    }
    const techniques = new Set(cases.map(({ c }) => c.technique));
    for (const t of ["ignore-previous", "fake-system-message", "fake-json-answer", "fake-handles", "fake-evidence", "role-play"])
      expect(techniques).toContain(t);
    expect([...techniques].some((t) => t.includes("exfiltration"))).toBe(true);
    expect(techniques).toContain("unicode-lookalike");
    expect(techniques).toContain("split-across-two-items");
  });

  it("names the file and the place of a mistake", async () => {
    const dir = join(scratch, "broken");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    const good = JSON.parse(readFileSync(join(EVALS_DIR, "inbox-week", "set.json"), "utf8"));
    writeFileSync(join(dir, "set.json"), JSON.stringify({ ...good, expect: [{ ...good.expect[0], kinds: ["deal"] }] }));
    await expect(loadSet(scratch, "broken")).rejects.toThrow(/"broken".*quote-request.*cannot write deal/);
    writeFileSync(join(dir, "set.json"), JSON.stringify({ ...good, agents: ["standup"] }));
    await expect(loadSet(scratch, "broken")).rejects.toThrow(EvalSetError);
    await expect(loadSet(scratch, "nothing-here")).rejects.toThrow(/no evaluation set "nothing-here"/);
  });
});
