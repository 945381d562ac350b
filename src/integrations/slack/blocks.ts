/**
 * Crew's Slack messages in Block Kit (src/docs/notes/delivery.md): the standup (its text, then the interventions
 * listed) and a person's briefing as a DM. Slack's mrkdwn treats `&`, `<` and `>` as markup, so
 * text from Crew's data is escaped as Slack documents.
 */
export type Block = Record<string, unknown>;

export const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const section = (text: string): Block => ({ type: "section", text: { type: "mrkdwn", text: slackEscape(text).slice(0, 2900) } });

export interface StandupForSlack {
  mode: "morning" | "evening";
  briefing: string;
  interventions: { title: string; priority: string; agent: string }[];
}

export function standupBlocks(s: StandupForSlack, link: string): { text: string; blocks: Block[] } {
  const title = `${s.mode === "morning" ? "Morning" : "Evening"} standup`;
  const list = s.interventions.length
    ? s.interventions
        .slice(0, 20)
        .map((i) => `• [${i.priority}] ${i.title} (${i.agent})`)
        .join("\n")
    : "Nothing needs a person.";
  return {
    text: `${title}: ${s.briefing}`.slice(0, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: title } },
      section(s.briefing),
      { type: "section", text: { type: "mrkdwn", text: `*Interventions*\n${slackEscape(list).slice(0, 2900)}` } },
      { type: "context", elements: [{ type: "mrkdwn", text: `<${link}|Open the standup in Crew>` }] },
    ],
  };
}

export function briefingBlocks(briefing: string, date: string, link: string): { text: string; blocks: Block[] } {
  return {
    text: `Your briefing — ${date}: ${briefing}`.slice(0, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: `Your briefing — ${date}` } },
      section(briefing),
      { type: "context", elements: [{ type: "mrkdwn", text: `<${link}|Open your briefing in Crew>` }] },
    ],
  };
}
