/** Standard Webhooks signing: the specification's own example, and fresh secrets in its format. */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, signedHeaders } from "../../src/webhooks/sign.ts";

describe("signedHeaders", () => {
  it("reproduces the example signature of the Standard Webhooks specification", () => {
    const headers = signedHeaders(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330_000,
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      "content-type": "application/json",
      "user-agent": "Crew-Webhooks/1.0",
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  it("makes distinct whsec_ secrets of 24 random bytes that the reference library accepts", () => {
    const secrets = new Set(Array.from({ length: 50 }, newWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      const at = Date.now();
      const headers = signedHeaders(secret, "evt_1", at, "{}");
      expect(new Webhook(secret).verify("{}", headers)).toEqual({});
    }
  });
});
