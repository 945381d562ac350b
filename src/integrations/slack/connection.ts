/**
 * The organization's stored Slack and Teams connections with their secrets opened: the bot token
 * and the Teams webhook URL are sealed with CREW_SECRET (src/integrations/secret-box.ts), bound to
 * the organization and the kind, so a sealed value copied elsewhere does not open.
 */
import type { Config } from "../../config.ts";
import type { Db } from "../../store/db.ts";
import { type ChannelKind, getChannel } from "../../store/delivery/channels.ts";
import { open, seal, sealingKey } from "../secret-box.ts";

export interface SlackConfig {
  botToken: string;
  channel: string;
  readChannels: string[];
}

const secretOf = (config: Config) => sealingKey(config, "credentials");
const purpose = (kind: ChannelKind, orgId: string) => `${kind}:${orgId}`;

export const sealChannelSecret = (config: Config, kind: ChannelKind, orgId: string, plain: string) =>
  seal(secretOf(config), plain, purpose(kind, orgId));

/** Throws SecretBoxError when it does not open (CREW_SECRET changed). */
export const openChannelSecret = (config: Config, kind: ChannelKind, orgId: string, sealed: string) =>
  open(secretOf(config), sealed, purpose(kind, orgId));

/** The Slack connection with its token opened; null when none, or when the token no longer opens. */
export async function slackConnection(deps: { db: Db; config: Config }, orgId: string): Promise<SlackConfig | null> {
  const stored = await getChannel(deps.db, orgId, "slack");
  if (!stored) return null;
  const c = stored.config as unknown as SlackConfig;
  try {
    return { ...c, readChannels: c.readChannels ?? [], botToken: await openChannelSecret(deps.config, "slack", orgId, c.botToken) };
  } catch {
    return null;
  }
}

/** The Teams webhook URL opened; null when none or it no longer opens. */
export async function teamsWebhookUrl(deps: { db: Db; config: Config }, orgId: string): Promise<string | null> {
  const stored = await getChannel(deps.db, orgId, "teams");
  if (!stored) return null;
  try {
    return await openChannelSecret(deps.config, "teams", orgId, String(stored.config.webhookUrl));
  } catch {
    return null;
  }
}
