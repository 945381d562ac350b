/**
 * Webhook signing secrets at rest (src/docs/notes/webhooks.md): sealed with AES-GCM from CREW_SECRET like
 * calendar passwords, bound to their subscription's id (copied to another row, a sealed secret
 * does not open). Rows written before sealing hold the `whsec_…` value itself and still work.
 */
import type { Config } from "../config.ts";
import { open, seal, sealingKey } from "../integrations/secret-box.ts";

const purpose = (webhookId: string) => `webhook:${webhookId}`;

const secretOf = (config: Config) => sealingKey(config, "webhook secrets");

export function sealWebhookSecret(config: Config, webhookId: string, secret: string): Promise<string> {
  return seal(secretOf(config), secret, purpose(webhookId));
}

/** The `whsec_…` secret of a stored row; throws SecretBoxError when it does not open (CREW_SECRET changed). */
export async function openWebhookSecret(config: Config, webhookId: string, stored: string): Promise<string> {
  if (stored.startsWith("whsec_")) return stored; // stored before secrets were sealed
  return open(secretOf(config), stored, purpose(webhookId));
}
