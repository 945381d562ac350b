/**
 * Plain words for the values the pages show (src/docs/notes/web-app.md#plain-words-and-dark-mode):
 * an agent by its name, a record's source by the door it came through, an enum value as words.
 * The stored value stays on the wire (REST, MCP); a page says it the way a person would, and may
 * keep the value in a tooltip.
 */
import { AGENTS } from "../domain.ts";

/** "Inbox", "Market Research"; a person or an unknown id as given. */
export const agentName = (id: string) => AGENTS.find((a) => a.id === id)?.name ?? id;

const SOURCE_TEXT: Record<string, string> = {
  web: "the web app",
  api: "the API",
  mcp: "an AI assistant",
  cli: "the command line",
  manual: "a person",
};

/** Where a record came from: a door (web, api, mcp, cli) or an agent (by name). */
export const sourceText = (source: string) => SOURCE_TEXT[source] ?? agentName(source);

/** The filter's words for a source value. */
export const sourceFilterText = (source: string) =>
  ({ web: "Web app", api: "API", mcp: "AI assistant", cli: "Command line" })[source] ?? agentName(source);

/** "follow_up" → "Follow-up", "team_starter" → "Team starter", "in_progress" → "In progress". */
export function words(value: string): string {
  const spaced = value === "follow_up" ? "follow-up" : value.replaceAll("_", " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

const HEALTH_TEXT: Record<string, string> = { green: "Healthy", stale: "Stale", error: "Failing", never_ran: "Never ran" };

/** One word per agent health state, the same on the dashboard, the standup and an agent's page. */
export const healthText = (health: string) => HEALTH_TEXT[health] ?? words(health);
