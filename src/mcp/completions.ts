/**
 * completion/complete (src/docs/notes/mcp-resources-and-prompts.md): suggestions for the arguments with fixed values — a prompt's
 * declared values (hand_off's `to`) and a resource template's variables (the standup mode, agent
 * ids), from the projection or the operation's picklist. Anything else completes to nothing, which
 * is a valid answer, not an error. Only for what the caller can see: a prompt or resource template
 * its plan and scope leave out of the lists completes to nothing too.
 */
import type { CompleteResult } from "@modelcontextprotocol/server";
import type * as v from "valibot";
import { denial } from "../auth/access.ts";
import type { Principal } from "../domain.ts";
import type { CrewPrompt } from "./prompts.ts";
import type { McpResource } from "./resources.ts";

/** The spec caps one answer at 100 values. */
const MAX_VALUES = 100;

/** The options of a picklist field, looking through optional and pipe wrappers. */
function picklistOptions(schema: v.GenericSchema | undefined): readonly string[] | undefined {
  let current = schema as (v.GenericSchema & { wrapped?: v.GenericSchema; options?: readonly unknown[]; pipe?: unknown[] }) | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current.type === "picklist" && current.options) return current.options.filter((o): o is string => typeof o === "string");
    current = current.wrapped as typeof current;
  }
  return undefined;
}

export function resourceVariableValues(resource: McpResource, variable: string): readonly string[] {
  const declared = resource.resource.values?.[variable];
  if (declared) return declared;
  const entries = (resource.op.input as { entries?: Record<string, v.GenericSchema> }).entries;
  return picklistOptions(entries?.[variable]) ?? [];
}

export function complete(
  prompts: readonly CrewPrompt[],
  resources: readonly McpResource[],
  ref: { type: string; name?: string; uri?: string },
  argument: { name: string; value: string },
  principal: Principal,
): CompleteResult {
  let values: readonly string[] = [];
  if (ref.type === "ref/prompt") {
    const prompt = prompts.find((p) => p.name === ref.name);
    if (prompt && denial(principal, prompt.access) === null) {
      values = prompt.arguments?.find((a) => a.name === argument.name)?.values ?? [];
    }
  } else if (ref.type === "ref/resource") {
    const resource = resources.find((r) => r.resource.uri === ref.uri);
    if (resource && denial(principal, resource.resource.access) === null && resource.variables.includes(argument.name)) {
      values = resourceVariableValues(resource, argument.name);
    }
  }
  const typed = argument.value.toLowerCase();
  const matching = values.filter((value) => value.toLowerCase().startsWith(typed));
  return { completion: { values: matching.slice(0, MAX_VALUES), total: matching.length, hasMore: matching.length > MAX_VALUES } };
}
