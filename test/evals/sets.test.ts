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
    expect(sets.map((s) => s.name).sort()).toEqual(["inbox-week", "injections", "market-watch", "operations-review", "pipeline-review"]);
    const inbox = sets.find((s) => s.name === "inbox-week");
    expect(inbox?.mail).toHaveLength(7);
    expect(inbox?.mail.map((m) => m.title)).toContain("Quote for 40 analytics seats");
    const market = sets.find((s) => s.name === "market-watch");
    expect(market?.feeds.map((f) => f.title)).toContain("Retention rules for analytics vendors amended");
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

  it("each model-backed agent has a set with expectations for it", () => {
    // slack became model-backed after the sets were written; its chat messages are not a set input yet
    // (src/docs/notes/eval.md says so), so it is the one agent without a set.
    for (const agent of MODEL_AGENTS.filter((a) => a !== "slack")) {
      expect(
        sets.some((s) => s.expect.some((f) => f.agent === agent)),
        agent,
      ).toBe(true);
    }
  });

  it("holds at least 30 injection cases across mail and feeds, canaries unique and only in the hostile text", () => {
    const cases = sets.flatMap((s) => s.injections.map((c) => ({ set: s, c })));
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(cases.filter(({ c }) => c.files.some((f) => f.startsWith("mail/"))).length).toBeGreaterThanOrEqual(10);
    expect(cases.filter(({ c }) => c.files.some((f) => f.startsWith("feeds/"))).length).toBeGreaterThanOrEqual(10);
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
