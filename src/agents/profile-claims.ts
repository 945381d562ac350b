/**
 * dna's claims in words, each resting on evidence (src/docs/notes/prompt-injection.md#words): the
 * model is handed the organization's deals, recent insights and contacts under handles, and every
 * claim it writes (archetype, strengths, weaknesses, patterns) must cite some; a claim citing
 * none it was handed is left out. The previous profile is not handed over: it is not evidence.
 */
import type { InStatement } from "@libsql/client";
import type { Evidence } from "../domain.ts";
import type { ContactInput } from "../store/contacts/contacts.ts";
import type { InsightRecord } from "../store/feed/insights.ts";
import type { ProfileSources } from "../store/reports/reports.ts";
import type { ProfileBody } from "./compose-profile.ts";
import { createHandles, evidenceOf } from "./handles.ts";
import { type AskModel, ProfileWords } from "./model-words.ts";

export interface Claims {
  archetype: string | null;
  strengths: string[];
  weaknesses: string[];
  patterns: { name: string; insight: string }[];
  evidence: { claim: string; evidence: Evidence[] }[];
  usage: InStatement;
}

const REQUEST =
  'Write this company\'s profile from its data: archetype (a short phrase), strengths, weaknesses and patterns ({name, insight}). Every claim cites in "evidence" the handles of the data it rests on (d1 a deal, i1 an insight, c1 a contact); write nothing the data does not show. Answer with {"archetype": {"text": "…", "evidence": […]}, "strengths": [{"text": "…", "evidence": […]}], "weaknesses": […], "patterns": [{"name": "…", "insight": "…", "evidence": […]}]}.';

export async function profileClaims(
  ask: AskModel,
  pipeline: ProfileBody["pipeline"],
  insights: readonly (InsightRecord & { provenance?: string })[],
  contacts: readonly ContactInput[],
  sources: ProfileSources,
): Promise<Claims | null> {
  const handles = createHandles();
  const data = {
    deals: pipeline.map((d) => ({ handle: handles.add({ kind: "deal", ref: d.company, title: `${d.company} (${d.stage})` }), ...d })),
    insights: insights.map((i) => ({
      handle: handles.add({ kind: "insight", ref: i.id, title: i.title }),
      title: i.title,
      type: i.type,
      impact: i.impact,
    })),
    contacts: contacts.map((c) => ({
      handle: handles.add({ kind: "contact", ref: c.id, title: c.name }),
      name: c.name,
      company: c.company,
      relationship: c.relationship,
    })),
    figures: sources,
  };
  const answer = await ask(REQUEST, data, ProfileWords);
  if (!answer) return null;
  const evidence: Claims["evidence"] = [];
  const kept = (text: string, cited: string[]) => {
    const found = evidenceOf(cited, handles);
    if (found.length === 0 || found.length < cited.length) return false;
    evidence.push({ claim: text, evidence: found });
    return true;
  };
  const { archetype, strengths, weaknesses, patterns } = answer.value;
  return {
    archetype: kept(archetype.text, archetype.evidence) ? archetype.text : null,
    strengths: strengths.filter((c) => kept(c.text, c.evidence)).map((c) => c.text),
    weaknesses: weaknesses.filter((c) => kept(c.text, c.evidence)).map((c) => c.text),
    patterns: patterns.filter((p) => kept(p.name, p.evidence)).map(({ name, insight }) => ({ name, insight })),
    evidence,
    usage: answer.usage,
  };
}
