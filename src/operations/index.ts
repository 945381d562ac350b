/** Every operation, in the order the documents list them. Projections iterate this list. */
import { addActions, listActionQueue, updateActionOp } from "./actions.ts";
import { getAgents } from "./agents.ts";
import type { Operation } from "./registry.ts";
import { getBriefing, getCompanyProfile, getStandup, getSuggestions } from "./reports.ts";
import { addContact, createHandoff, postInsight } from "./writes.ts";

export const operations: Operation[] = [
  getAgents,
  getStandup,
  getBriefing,
  getSuggestions,
  getCompanyProfile,
  listActionQueue,
  addActions,
  updateActionOp,
  addContact,
  createHandoff,
  postInsight,
] as unknown as Operation[];
