/** Every operation, in the order the documents list them. Projections iterate this list. */
import { addActionsOp, getActionOp, listActionsOp, updateActionOp } from "./actions.ts";
import { getAgentOp } from "./agent-eval.ts";
import { resumeAgentOp } from "./agent-pause.ts";
import { runAgentNowOp } from "./agent-run-now.ts";
import { completeAgentRunOp, listAgentRunsOp, startAgentRunOp, updateAgentOp } from "./agent-runs.ts";
import { createTriggerSecretOp, triggerAgentOp } from "./agent-trigger.ts";
import { getAgentsOp } from "./agents.ts";
import { createCalendarEventOp, findTimeOp } from "./calendar.ts";
import { testSlackOp, testTeamsOp } from "./channel-tests.ts";
import { connectSlackOp, connectTeamsOp, disconnectSlackOp, disconnectTeamsOp, getSlackOp, getTeamsOp } from "./channels.ts";
import { deleteConnectionOp, listConnectionsOp } from "./connections.ts";
import { listOAuthGrantsOp, revokeOAuthGrantOp } from "./grants.ts";
import { listHeldOp, reviewHeldOp } from "./held.ts";
import { connectCalendarIntegrationOp, disconnectCalendarIntegrationOp, getCalendarIntegrationOp } from "./integrations.ts";
import { createApiKeyOp, listApiKeysOp, revokeApiKeyOp } from "./keys.ts";
import { listContactsOp } from "./listings.ts";
import { deleteModelIntegrationOp, getModelIntegrationOp, saveModelIntegrationOp, testModelIntegrationOp } from "./model.ts";
import { getMyNotificationsOp, updateMyNotificationsOp } from "./notifications.ts";
import type { Operation } from "./registry.ts";
import { getBriefingOp, getCompanyProfileOp, getStandupOp, getSuggestionsOp } from "./reports.ts";
import { addSourceOp, deleteSourceOp, listSourcesOp } from "./sources.ts";
import { updateSuggestionOp } from "./suggestions.ts";
import { createWebhookOp, deleteWebhookOp, listWebhookDeliveriesOp, listWebhooksOp } from "./webhooks.ts";
import { createHandoffOp, postInsightOp, upsertContactOp } from "./writes.ts";

export const operations: Operation[] = [
  getAgentsOp,
  getStandupOp,
  getBriefingOp,
  getSuggestionsOp,
  updateSuggestionOp,
  getCompanyProfileOp,
  listActionsOp,
  getActionOp,
  addActionsOp,
  updateActionOp,
  listHeldOp,
  reviewHeldOp,
  listContactsOp,
  upsertContactOp,
  createHandoffOp,
  postInsightOp,
  findTimeOp,
  createCalendarEventOp,
  getCalendarIntegrationOp,
  connectCalendarIntegrationOp,
  disconnectCalendarIntegrationOp,
  listConnectionsOp,
  deleteConnectionOp,
  addSourceOp,
  listSourcesOp,
  deleteSourceOp,
  getModelIntegrationOp,
  saveModelIntegrationOp,
  deleteModelIntegrationOp,
  testModelIntegrationOp,
  listApiKeysOp,
  createApiKeyOp,
  revokeApiKeyOp,
  listOAuthGrantsOp,
  revokeOAuthGrantOp,
  startAgentRunOp,
  completeAgentRunOp,
  listAgentRunsOp,
  getAgentOp,
  updateAgentOp,
  resumeAgentOp,
  runAgentNowOp,
  triggerAgentOp,
  createTriggerSecretOp,
  createWebhookOp,
  listWebhooksOp,
  deleteWebhookOp,
  listWebhookDeliveriesOp,
  getMyNotificationsOp,
  updateMyNotificationsOp,
  getSlackOp,
  connectSlackOp,
  testSlackOp,
  disconnectSlackOp,
  getTeamsOp,
  connectTeamsOp,
  testTeamsOp,
  disconnectTeamsOp,
] as unknown as Operation[];
