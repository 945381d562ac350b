/**
 * The Teams sender of the message outbox (src/docs/notes/delivery.md): the morning standup as an Adaptive Card,
 * POSTed to the organization's Teams Workflows webhook through the outbound policy (src/docs/notes/outbound-requests.md: the
 * URL is a user's, so loopback and private addresses are refused unless ALLOW_PRIVATE_TARGETS is
 * on; a refused address reads like an unreachable one). 2xx acknowledges; 429 and 5xx are retried;
 * another 4xx means the workflow is gone or changed, so trying again will not help.
 *
 * What agents and people wrote (the briefing, titles) goes into the card as `TextRun`s of a
 * `RichTextBlock`, which Adaptive Cards render without Markdown: a title written as
 * `[Approve](https://evil…)` shows as those characters, never as a link.
 */
import { latestStandup } from "../../store/reports/reports.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../outbound.ts";
import { UNREACHABLE_TARGET } from "../outbound-targets.ts";
import { teamsWebhookUrl } from "../slack/connection.ts";
import { oneLine } from "./briefing-mail.ts";
import type { NotifyDeps, Sender } from "./outbox.ts";

interface StandupBody {
  briefing: string;
  interventions: { title: string; priority: string; agent: string }[];
}

/** Text shown as written: a TextRun has no Markdown (Adaptive Cards 1.2+), unlike a TextBlock. */
const plain = (text: string) => ({ type: "RichTextBlock", inlines: [{ type: "TextRun", text }] });

export function standupCard(s: StandupBody, link: string): unknown {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            { type: "TextBlock", text: "Morning standup", weight: "Bolder", size: "Medium" },
            plain(s.briefing),
            { type: "TextBlock", text: "Interventions", weight: "Bolder", spacing: "Medium" },
            ...(s.interventions.length
              ? s.interventions.slice(0, 20).map((i) => plain(`• [${i.priority}] ${oneLine(i.title)} (${i.agent})`))
              : [{ type: "TextBlock", text: "Nothing needs a person.", wrap: true }]),
          ],
          actions: [{ type: "Action.OpenUrl", title: "Open the standup in Crew", url: link }],
        },
      },
    ],
  };
}

/** POSTs a card to the Teams webhook through the outbound policy: 2xx acknowledges. */
async function postCard(
  deps: NotifyDeps,
  url: string,
  card: unknown,
  signal?: AbortSignal,
): Promise<{ ok: true } | { ok: false; error: string; permanent?: boolean }> {
  try {
    const res = await outboundFetch(deps.outbound, url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(card),
      redirect: "manual",
      maxRedirects: 0,
      timeoutMs: 15_000,
      ...(signal ? { signal } : {}),
    });
    await res.body?.cancel().catch(() => {});
    if (res.ok) return { ok: true };
    return {
      ok: false,
      error: `Teams answered HTTP ${res.status}.`,
      permanent: res.status >= 400 && res.status < 500 && res.status !== 429,
    };
  } catch (error) {
    if (error instanceof OutboundRefused || error instanceof OutboundFailed) {
      deps.log.info("teams webhook not reached", { refused: error instanceof OutboundRefused, reason: error.reason });
      return { ok: false, error: UNREACHABLE_TARGET };
    }
    throw error;
  }
}

export const teamsSender: Sender = async (deps, m, signal) => {
  const url = await teamsWebhookUrl(deps, m.orgId);
  if (!url)
    return { ok: false, error: "No Teams webhook is saved (or it no longer opens): save it in Settings → Notifications.", permanent: true };
  const standup = await latestStandup<StandupBody>(deps.db, m.orgId, "morning");
  if (!standup) return { ok: false, error: "Skipped: no morning standup is stored.", permanent: true };
  return postCard(deps, url, standupCard(standup.body, `${deps.config.baseUrl}/standup`), signal);
};

/** "Send a test message": a one-line card to the saved webhook, now (not through the outbox). */
export async function sendTeamsTest(deps: NotifyDeps, orgId: string): Promise<{ ok: true } | { ok: false; error: string }> {
  const url = await teamsWebhookUrl(deps, orgId);
  if (!url) return { ok: false, error: "No Teams webhook is saved (or it no longer opens): save it in Settings → Notifications." };
  const card = standupCard(
    { briefing: "Crew test message: the morning standup will be posted here.", interventions: [] },
    deps.config.baseUrl,
  );
  const sent = await postCard(deps, url, card);
  return sent.ok ? sent : { ok: false, error: sent.error };
}
