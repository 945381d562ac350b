/**
 * One schema for every address Crew reaches for a user (src/operations/schemas.ts `PublicUrl`):
 * the webhook target, the Teams workflow, the feed and the CalDAV server answer each bad address
 * with the same single message. Before, the feed let a #fragment through that the calendar
 * refused, and the Teams field said an over-long address was too long twice.
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { TeamsInput } from "./channels.ts";
import { ConnectCalendarInput } from "./integrations.ts";
import { AddFeedInput } from "./sources.ts";
import { CreateWebhookInput } from "./webhooks.ts";

/** The messages of the address field only, for each of the four inputs. */
function messagesFor(url: string) {
  const of = (schema: v.GenericSchema, body: Record<string, unknown>, field: string) => {
    const result = v.safeParse(schema, body);
    return result.success ? [] : result.issues.filter((i) => i.path?.[0]?.key === field).map((i) => i.message);
  };
  return {
    webhook: of(CreateWebhookInput, { url, events: ["action.created"] }, "url"),
    teams: of(TeamsInput, { webhookUrl: url }, "webhookUrl"),
    feed: of(AddFeedInput, { kind: "feed", url, agents: ["research"] }, "url"),
    calendar: of(ConnectCalendarInput, { url, username: "ada", password: "secret" }, "url"),
  };
}

const same = (messages: string[]) => ({ webhook: messages, teams: messages, feed: messages, calendar: messages });

describe("PublicUrl", () => {
  it.each([
    ["", "Must be an absolute http:// or https:// URL."],
    ["not a url", "Must be an absolute http:// or https:// URL."],
    ["ftp://files.example.com/", "Must be an http:// or https:// URL."],
    ["https://ada:secret@example.com/", "Must not contain a user name or password."],
    ["https://example.com/feed.xml#top", "Must not contain a #fragment."],
    [`https://example.com/${"a".repeat(2000)}`, "Must be at most 2000 characters."],
  ])("refuses %j with one message, the same for every address field", (url, message) => {
    expect(messagesFor(url)).toEqual(same([message]));
  });

  it("takes a public https address, trimmed, in every field", () => {
    expect(messagesFor("  https://example.com/path?q=1  ")).toEqual(same([]));
    const parsed = v.parse(AddFeedInput, { kind: "feed", url: "  https://example.com/feed.xml ", agents: ["research"] });
    expect(parsed.url).toBe("https://example.com/feed.xml");
  });
});
