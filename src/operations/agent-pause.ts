/**
 * Resuming an agent that paused itself (src/agents/auto-pause.ts). Owners only (isOwner, as the
 * users operations check it), on top of the admin scope.
 */
import * as v from "valibot";
import { resumeAgent } from "../agents/auto-pause.ts";
import { assertAgent } from "../agents/run-api.ts";
import { writeAccess } from "../auth/access.ts";
import { defineOperation } from "./registry.ts";

export const resumeAgentOp = defineOperation({
  id: "resumeAgent",
  role: "owner",
  summary: "Resume a paused agent",
  description:
    "An agent pauses itself after 3 scheduled runs in a row end in error: the scheduler skips it and a critical alert says why. Resuming clears the pause and the alert; the agent runs again from its next slot. A successful run started by an owner (Run now) resumes it too. Owners only.",
  input: v.strictObject({ id: v.pipe(v.string(), v.description("The agent's id, one of the 17 (e.g. pulse, sales).")) }),
  output: v.object({
    id: v.string(),
    resumed: v.pipe(v.boolean(), v.description("false when the agent was not paused (nothing changed).")),
  }),
  rest: { method: "POST", path: "/api/agents/{id}/resume", access: writeAccess(), from: "none", tags: ["Agents runtime"] },
  handler: async (ctx, input) => {
    assertAgent(input.id);
    return { id: input.id, resumed: await resumeAgent(ctx, ctx.principal.orgId, input.id) };
  },
});
