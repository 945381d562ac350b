/** Every operation, in the order the documents list them. Projections iterate this list. */
import { addActions, getActionOp, listActionQueue, updateActionOp } from "./actions.ts";
import { getAgentOp } from "./agent-eval.ts";
import { resumeAgentOp } from "./agent-pause.ts";
import { runAgentNowOp } from "./agent-run-now.ts";
import { completeAgentRunOp, listAgentRunsOp, startAgentRunOp, updateAgentOp } from "./agent-runs.ts";
import { createTriggerSecretOp, triggerAgentOp } from "./agent-trigger.ts";
import { getAgents } from "./agents.ts";
import { createCalendarEvent, findTime } from "./calendar.ts";
import { testSlack, testTeams } from "./channel-tests.ts";
import { connectSlack, connectTeams, disconnectSlack, disconnectTeams, getSlack, getTeams } from "./channels.ts";
import { deleteConnectionOp, listConnectionsOp } from "./connections.ts";
import { listOAuthGrants, revokeOAuthGrant } from "./grants.ts";
import { listHeldOp, reviewHeldOp } from "./held.ts";
import { connectCalendarIntegration, disconnectCalendarIntegration, getCalendarIntegration } from "./integrations.ts";
import { createApiKey, deleteApiKey, listApiKeys } from "./keys.ts";
import { listContactsOp } from "./listings.ts";
import { deleteModelIntegration, getModelIntegration, saveModelIntegration, testModelIntegration } from "./model.ts";
import { getMyNotifications, updateMyNotifications } from "./notifications.ts";
import type { Operation } from "./registry.ts";
import { getBriefing, getCompanyProfile, getStandup, getSuggestions } from "./reports.ts";
import { addSourceOp, deleteSourceOp, listSourcesOp } from "./sources.ts";
import { updateSuggestionOp } from "./suggestions.ts";
import { createWebhook, deleteWebhookOp, listWebhookDeliveries, listWebhooksOp } from "./webhooks.ts";
import { addContact, createHandoff, postInsight } from "./writes.ts";

export const operations: Operation[] = [
  getAgents,
  getStandup,
  getBriefing,
  getSuggestions,
  updateSuggestionOp,
  getCompanyProfile,
  listActionQueue,
  getActionOp,
  addActions,
  updateActionOp,
  listHeldOp,
  reviewHeldOp,
  listContactsOp,
  addContact,
  createHandoff,
  postInsight,
  findTime,
  createCalendarEvent,
  getCalendarIntegration,
  connectCalendarIntegration,
  disconnectCalendarIntegration,
  listConnectionsOp,
  deleteConnectionOp,
  addSourceOp,
  listSourcesOp,
  deleteSourceOp,
  getModelIntegration,
  saveModelIntegration,
  deleteModelIntegration,
  testModelIntegration,
  listApiKeys,
  createApiKey,
  deleteApiKey,
  listOAuthGrants,
  revokeOAuthGrant,
  startAgentRunOp,
  completeAgentRunOp,
  listAgentRunsOp,
  getAgentOp,
  updateAgentOp,
  resumeAgentOp,
  runAgentNowOp,
  triggerAgentOp,
  createTriggerSecretOp,
  createWebhook,
  listWebhooksOp,
  deleteWebhookOp,
  listWebhookDeliveries,
  getMyNotifications,
  updateMyNotifications,
  getSlack,
  connectSlack,
  testSlack,
  disconnectSlack,
  getTeams,
  connectTeams,
  testTeams,
  disconnectTeams,
] as unknown as Operation[];
