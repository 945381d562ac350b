/**
 * The OpenAPI 3.1 `webhooks` section: what Crew POSTs to a subscription for each event (signed per
 * Standard Webhooks; see src/docs/notes/webhooks.md). Payload shapes mirror webhookEventOf in
 * src/domain.ts.
 */
const ts = { type: "string", format: "date-time", description: "When the event happened (UTC)." };
const id = (description: string) => ({ type: "string", description });

const EVENTS: Record<string, { summary: string; properties: Record<string, unknown>; required: string[] }> = {
  "action.created": {
    summary: "A task was added to the action queue (API, MCP or an agent).",
    properties: {
      actionId: id("The action's id."),
      contactId: id("Set when the action is about a contact."),
      dealId: id("Set when it is about a deal."),
    },
    required: ["actionId"],
  },
  "briefing.completed": {
    summary: "A person's daily briefing is ready.",
    properties: { userId: id("Whose briefing."), briefingId: id("The briefing's id."), summary: { type: "string" } },
    required: ["userId", "briefingId"],
  },
  "standup.ready": {
    summary: "The morning standup is ready.",
    properties: { standupId: id("The standup's id.") },
    required: ["standupId"],
  },
  "budget.warning": {
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
        },
      },
    ]),
  );
}
