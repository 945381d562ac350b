/**
 * The OpenAPI 3.1 `webhooks` section: what Crew POSTs to a subscription for each event (signed per
 * Standard Webhooks; see src/docs/notes/webhooks.md). Payload shapes mirror webhookEventOf in
 * src/domain.ts.
 */
const ts = { type: "string", format: "date-time", description: "When the event happened (UTC)." };
const id = (description: string) => ({ type: "string", description });

const EVENTS: Record<string, { operationId: string; summary: string; properties: Record<string, unknown>; required: string[] }> = {
  "action.created": {
    operationId: "actionCreatedWebhook",
    summary:
      "A task was added to the action queue, through any door: REST, MCP, the web app, the CLI, a one-click link, an accepted suggestion or an agent's run. Carries what a receiver needs to show it without a second request.",
    properties: {
      actionId: id("The action's id."),
      title: { type: "string", description: "The action's title." },
      priority: { type: "string", enum: ["critical", "high", "medium", "low"] },
      status: { type: "string", description: "Its status when it was added (pending for a new action)." },
      source: { type: "string", description: "Who added it: api, mcp, web, cli, or the agent's id." },
      url: { type: "string", format: "uri", description: "The action on Crew's web app (sign-in required)." },
      contactId: id("Set when the action is about a contact."),
      dealId: id("Set when it is about a deal."),
    },
    required: ["actionId", "title", "priority", "status", "source", "url"],
  },
  "briefing.completed": {
    operationId: "briefingCompletedWebhook",
    summary: "A person's daily briefing is ready.",
    properties: { userId: id("Whose briefing."), briefingId: id("The briefing's id."), summary: { type: "string" } },
    required: ["userId", "briefingId"],
  },
  "standup.ready": {
    operationId: "standupReadyWebhook",
    summary: "The morning standup is ready.",
    properties: { standupId: id("The standup's id.") },
    required: ["standupId"],
  },
  "budget.warning": {
    operationId: "budgetWarningWebhook",
    summary:
      "80 % of a model token budget is used today (UTC): the organization's, or one agent's cap when `agent` is set. Sent once per budget per day.",
    properties: {
      organizationId: id("The organization whose budget it is."),
      agent: id("The agent whose daily cap it is; absent for the organization's budget."),
      used: { type: "integer", description: "Tokens used today." },
      limit: { type: "integer", description: "The budget in tokens." },
    },
    required: ["organizationId", "used", "limit"],
  },
};

export function webhookDocs(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(EVENTS).map(([name, e]) => [
      name,
      {
        post: {
          operationId: e.operationId,
          summary: e.summary,
          description: "Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature); any 2xx acknowledges.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { event: { const: name }, ...e.properties, timestamp: ts },
                  required: ["event", ...e.required, "timestamp"],
                },
              },
            },
          },
          responses: { "200": { description: "Any 2xx acknowledges the delivery." } },
          // Crew calls the receiver, which proves the sender by the signature, not by a credential Crew presents.
          security: [],
        },
      },
    ]),
  );
}
