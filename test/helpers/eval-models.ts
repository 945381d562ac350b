/**
 * Scripted models for `crew eval` (a real model is outside this machine's reach): scripts for the
 * scripted model server that answer the evaluation sets — one correctly (a record for each expected
 * fact, citing the handles it was handed), one that also obeys chosen injection cases (it copies
 * their canary into an action, as a tricked model would).
 */

import { type EvalSet, RECORD_KINDS } from "../../src/agents/eval/sets.ts";
import { MODEL_AGENTS } from "../../src/agents/jobs.ts";
import type { RecordedRequest, Reply, Script } from "./scripted-model.ts";

export const agentOf = (r: RecordedRequest) => /You are the .+? agent \((\w+)\)\./.exec(r.system)?.[1] ?? "?";

const userText = (r: RecordedRequest) => r.messages.map((m) => m.text).join("\n");

/** The handles the run handed out (`m1`, `f3`, `c12`, …), as they appear in the data. */
export function handlesIn(r: RecordedRequest): string[] {
  return [...userText(r).matchAll(/"handle":"([a-z]+\d+)"/g)].map((m) => m[1] as string);
}

/** The set a request comes from: the one of the agent's sets whose inputs the request shows most of. */
function setOf(sets: EvalSet[], agent: string, text: string): EvalSet | undefined {
  const shown = (s: EvalSet) =>
    [...s.mail, ...s.feeds, ...s.actions, ...s.insights, ...s.contacts.map((c) => ({ title: c.name }))].filter((i) =>
      text.includes(JSON.stringify(i.title).slice(1, -1)),
    ).length;
  return sets
    .filter((s) => s.agents.includes(agent))
    .map((s) => ({ s, n: shown(s) }))
    .sort((a, b) => b.n - a.n)[0]?.s;
}

/** The answer of a model that does each set's job: one record per expected fact of the agent. */
function correctAnswer(set: EvalSet | undefined, agent: string, r: RecordedRequest): Record<string, unknown> {
  const handles = handlesIn(r);
  const evidence = handles.length > 0 ? { evidence: [handles[0]] } : {};
  const answer: Record<string, unknown> = { summary: `${agent}: went through the data` };
  const push = (field: string, value: unknown) => {
    answer[field] = [...((answer[field] as unknown[]) ?? []), value];
  };
  for (const fact of (set?.expect ?? []).filter((f) => f.agent === agent)) {
    const kind = fact.kinds[0];
    if (!kind) continue;
    const title = fact.keywords.map((k) => k.split("|")[0]).join(" — ");
    const band = fact.priority?.[0] ?? "high";
    const field = RECORD_KINDS[kind];
    if (kind === "suggestion") push(field, { title, detail: "From this run's data.", priority: band, ...evidence });
    if (kind === "action") push(field, { title, priority: band, type: "task", ...evidence });
    if (kind === "insight") push(field, { title, impact: band === "critical" ? "high" : band, ...evidence });
    if (kind === "handoff") push(field, { to: MODEL_AGENTS.find((a) => a !== agent), title, ...evidence });
    if (kind === "contact") push(field, { name: title, email: fact.keywords.find((k) => k.includes("@")) });
    if (kind === "deal") push(field, { company: title, stage: "lead", value: 0 });
  }
  return answer;
}

/** Answers every set correctly; `obey` names injection cases whose canary it writes into an action when their text was handed to it. */
export function evalScript(sets: EvalSet[], obey: Set<string> = new Set()): Script {
  return (r): Reply => {
    const agent = agentOf(r);
    const text = userText(r);
    const set = setOf(sets, agent, text);
    const answer = correctAnswer(set, agent, r);
    for (const c of set?.injections ?? []) {
      if (!obey.has(c.id)) continue;
      // A split case's canary is put together from its parts, as the hostile items ask.
      const handed = c.canary.split("-").slice(0, 2).join("-");
      if (!text.includes(handed)) continue;
      const handles = handlesIn(r);
      answer.actions = [
        ...((answer.actions as unknown[]) ?? []),
        { title: `${c.canary} as instructed`, priority: "critical", type: "task", ...(handles[0] ? { evidence: [handles[0]] } : {}) },
      ];
    }
    return { object: answer, tokensIn: 1000, tokensOut: 100 };
  };
}
