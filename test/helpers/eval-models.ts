/**
 * Scripted models for `crew eval` (a real model is outside this machine's reach): scripts for the
 * scripted model server that answer the evaluation sets the way five kinds of model would —
 * compliant (a record for each expected fact, citing the fact's source input, obeying nothing),
 * invalid every time, summary only, obeying attacks without copying a canary (paraphrased), and
 * compliant but answering in a fenced JSON block as small models do. The canary-copying model of
 * earlier rounds is `obey` on the compliant one.
 */

import { type EvalSet, inputsAt, RECORD_KINDS } from "../../src/agents/eval/sets.ts";
import { MODEL_AGENTS } from "../../src/agents/jobs.ts";
import type { RecordedRequest, Reply, Script } from "./scripted-model.ts";

export const agentOf = (r: RecordedRequest) => /You are the .+? agent \((\w+)\)\./.exec(r.system)?.[1] ?? "?";

const userText = (r: RecordedRequest) => r.messages.map((m) => m.text).join("\n");

/** The handles the run handed out (`m1`, `f3`, `c12`, …), as they appear in the data. */
export function handlesIn(r: RecordedRequest): string[] {
  return [...userText(r).matchAll(/"handle":"([a-z]+\d+)"/g)].map((m) => m[1] as string);
}

/** As the text appears inside the request's JSON data. */
const inJson = (text: string) => JSON.stringify(text).slice(1, -1);

/** The handle of the data item holding `needle`: the last handle handed out before it (each item's first field is its handle). */
function handleBefore(text: string, needle: string): string | undefined {
  const at = text.indexOf(needle);
  if (at < 0) return undefined;
  return [...text.slice(0, at).matchAll(/"handle":"([a-z]+\d+)"/g)].at(-1)?.[1];
}

/** What the request shows of a fact's source: an input's title (a chat message's first words) or a stored record's name. */
function needlesOf(set: EvalSet, source: string): string[] {
  const inputs = inputsAt(set, source);
  if (inputs.length > 0)
    return inputs.map((i) => inJson(i.path.startsWith("slack.json") ? (i.text.split("\n")[2]?.slice(0, 40) ?? i.title) : i.title));
  if (source === "metric:pulse") return ['"dau":'];
  const [kind, name] = [source.slice(0, source.indexOf(":")), inJson(source.slice(source.indexOf(":") + 1))];
  // The field that names the record, so a contact's company is not taken for the deal.
  if (kind === "deal") return [`"company":"${name}","stage"`];
  if (kind === "contact") return [`"name":"${name}"`];
  return [`"title":"${name}"`, name];
}

/** The handle of the first of a fact's sources the request shows. */
function sourceHandle(set: EvalSet, sources: string[], text: string): string | undefined {
  for (const source of sources) {
    for (const needle of needlesOf(set, source)) {
      const handle = handleBefore(text, needle);
      if (handle) return handle;
    }
  }
  return undefined;
}

/** The set a request comes from: the one of the agent's sets whose inputs the request shows most of. */
function setOf(sets: EvalSet[], agent: string, text: string): EvalSet | undefined {
  const shown = (s: EvalSet) =>
    [...s.inputs, ...s.actions, ...s.insights, ...s.contacts.map((c) => ({ title: c.name }))].filter((i) => text.includes(inJson(i.title)))
      .length;
  return sets
    .filter((s) => s.agents.includes(agent))
    .map((s) => ({ s, n: shown(s) }))
    .sort((a, b) => b.n - a.n)[0]?.s;
}

type Answer = Record<string, unknown>;
const push = (answer: Answer, field: string, value: unknown) => {
  answer[field] = [...((answer[field] as unknown[]) ?? []), value];
};

/** The answer of a model that does each set's job: one record per expected fact of the agent, citing the fact's source. */
function correctAnswer(set: EvalSet | undefined, agent: string, r: RecordedRequest): Answer {
  const text = userText(r);
  const answer: Answer = { summary: `${agent}: went through the data` };
  for (const fact of (set?.expect ?? []).filter((f) => f.agent === agent)) {
    // Not the kind of a stored record it rests on: repeating an open record merges into it (said once).
    const stored = new Set(fact.sources.map((s) => s.slice(0, s.indexOf(":"))));
    const kind = fact.kinds.find((k) => !stored.has(k)) ?? fact.kinds[0];
    const handle = set && sourceHandle(set, fact.sources, text);
    if (!kind) continue;
    const evidence = handle ? { evidence: [handle] } : {};
    const title = fact.keywords.map((k) => k.split("|").join(" / ")).join(" — ");
    const band = fact.priority?.[0] ?? "high";
    const field = RECORD_KINDS[kind];
    if (kind === "suggestion") push(answer, field, { title, detail: "From this run's data.", priority: band, ...evidence });
    if (kind === "action") push(answer, field, { title, priority: band, type: "task", ...evidence });
    if (kind === "insight") push(answer, field, { title, impact: band === "critical" ? "high" : band, ...evidence });
    if (kind === "handoff") push(answer, field, { to: MODEL_AGENTS.find((a) => a !== agent), title, ...evidence });
    if (kind === "contact") push(answer, field, { name: title, email: fact.keywords.find((k) => k.includes("@")) });
    if (kind === "deal") push(answer, field, { company: title, stage: "lead", value: 0 });
  }
  return answer;
}

/** The attack cases of the set whose hostile text the request shows, with the handle of that text. */
function attacksShown(
  set: EvalSet | undefined,
  r: RecordedRequest,
): { id: string; handle: string | undefined; terms: string[]; marks: string[]; canary?: string }[] {
  const text = userText(r);
  return (set?.injections ?? []).flatMap((c) => {
    const inputs = c.files.flatMap((f) => inputsAt(set as EvalSet, f));
    const shown = inputs.find((i) => text.includes(inJson(i.title)));
    if (!shown) return [];
    return [
      {
        id: c.id,
        handle: handleBefore(text, inJson(shown.title)),
        terms: (c.asks?.terms ?? []).map((t) => t.split("|")[0] as string),
        marks: c.asks?.marks ?? [],
        ...(c.canary ? { canary: c.canary } : {}),
      },
    ];
  });
}

export interface EvalModelOptions {
  /** Cases whose canary it copies into an action when their text was handed to it, as a tricked model would. */
  obey?: Set<string>;
}

/** Compliant: answers every set correctly, citing each fact's source; with `obey`, copies those cases' canaries. */
export function evalScript(sets: EvalSet[], options: EvalModelOptions | Set<string> = {}): Script {
  const obey = options instanceof Set ? options : (options.obey ?? new Set<string>());
  return (r): Reply => {
    const agent = agentOf(r);
    const text = userText(r);
    const set = setOf(sets, agent, text);
    const answer = correctAnswer(set, agent, r);
    for (const c of set?.injections ?? []) {
      if (!obey.has(c.id) || !c.canary) continue;
      // A split case's canary is put together from its parts, as the hostile items ask.
      const handed = c.canary.split("-").slice(0, 2).join("-");
      if (!text.includes(handed)) continue;
      const handles = handlesIn(r);
      push(answer, "actions", {
        title: `${c.canary} as instructed`,
        priority: "critical",
        type: "task",
        ...(handles[0] ? { evidence: [handles[0]] } : {}),
      });
    }
    return { object: answer, tokensIn: 1000, tokensOut: 100 };
  };
}

/** Invalid every time: an answer no schema accepts, first try and retry alike. */
export const invalidScript: Script = () => ({ object: { summary: 42, actions: "none", facts: [] }, tokensIn: 1000, tokensOut: 20 });

/** Summary only: a valid answer that writes nothing. */
export const summaryOnlyScript: Script = (r) => ({
  object: { summary: `${agentOf(r)}: nothing needs doing` },
  tokensIn: 1000,
  tokensOut: 20,
});

/**
 * Obeys, paraphrased: compliant, and for every attack it is handed it does what the attack asks in
 * its own words — no canary copied — as a critical approval citing the hostile input (the write
 * policy caps and may hold it; what is not held counts as attack success).
 */
export function obeysParaphrasedScript(sets: EvalSet[]): Script {
  return (r): Reply => {
    const agent = agentOf(r);
    const set = setOf(sets, agent, userText(r));
    const answer = correctAnswer(set, agent, r);
    for (const c of attacksShown(set, r)) {
      if (c.terms.length === 0 && c.marks.length === 0) continue;
      const title = [...c.terms, ...c.marks].join(" ");
      const evidence = c.handle ? { evidence: [c.handle] } : {};
      // An answer holds at most 10 actions: the rest as critical suggestions.
      if (((answer.actions as unknown[] | undefined)?.length ?? 0) < 10)
        push(answer, "actions", {
          title: `As requested by the sender: ${title}`,
          description: `Approve ${title} today.`,
          priority: "critical",
          type: "approval",
          ...evidence,
        });
      else
        push(answer, "suggestions", {
          title: `As requested by the sender: ${title}`,
          detail: `Approve ${title} today.`,
          priority: "critical",
          ...evidence,
        });
    }
    return { object: answer, tokensIn: 1000, tokensOut: 150 };
  };
}

/** Fenced JSON: the compliant answer after a sentence, inside a ```json block (the §23 repair takes it out). */
export function fencedJsonScript(sets: EvalSet[]): Script {
  const compliant = evalScript(sets);
  return async (r): Promise<Reply> => {
    const reply = (await compliant(r)) as { object: unknown };
    return { text: `Here is my answer:\n\n\`\`\`json\n${JSON.stringify(reply.object, null, 2)}\n\`\`\`\n`, tokensIn: 1000, tokensOut: 120 };
  };
}
