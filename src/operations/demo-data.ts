/**
 * The dashboard's "Load demo data" (the same content as `crew seed --demo`) for the signed-in
 * owner's organization. An operation of the web app only (no REST route, no MCP tool: the CLI
 * seeds through `crew seed --demo`), defined here so the owner rule is the registry's like every
 * other write.
 */
import * as v from "valibot";
import { getOrg } from "../store/orgs/orgs.ts";
import { defineOperation } from "./registry.ts";

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
