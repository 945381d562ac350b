/**
 * The dashboard's "Getting started" and its "Load demo data" (the same content as `crew seed --demo`)
 * for the signed-in person's organization. Operations of the web app only (no REST route, no MCP
 * tool: the CLI seeds through `crew seed --demo`), defined here so the owner rule and the
 * organization's boundary are the registry's like every other read and write.
 */
import * as v from "valibot";
import { BUILT_IN_RUNNERS } from "../agents/runners.ts";
import { getOrg } from "../store/orgs/orgs.ts";
import { hasOwnContent } from "../store/orgs/own-content.ts";
import { defineOperation } from "./registry.ts";

export const getOwnContentOp = defineOperation({
  id: "getOwnContent",
  summary: "Whether the organization has content of its own",
  description:
    "Whether anything is stored besides the built-in composers' runs (standup, briefing, pulse, dna run on their own at start and on schedule): an action, contact, insight, handoff, suggestion, or a run of another agent. The dashboard shows Getting started until there is.",
  input: v.strictObject({}),
  output: v.object({ ownContent: v.boolean() }),
  handler: async (ctx) => ({ ownContent: await hasOwnContent(ctx.db, ctx.principal.orgId, BUILT_IN_RUNNERS) }),
});

export const loadDemoDataOp = defineOperation({
  id: "loadDemoData",
  role: "owner",
  summary: "Load demo data",
  description: "Adds a week of the crew's work (suggestions, actions, contacts, runs) to the organization, to look around in.",
  input: v.strictObject({}),
  output: v.object({ loaded: v.boolean() }),
  handler: async (ctx) => {
    const org = await getOrg(ctx.db, ctx.principal.orgId);
    if (!org) throw new Error("organization missing");
    const { seedDemo } = await import("../demo/seed.ts"); // the demo content is large: loaded when asked for
    await seedDemo(ctx.db, org, ctx.clock.now());
    return { loaded: true };
  },
});
