/** GOOGLE_* and MICROSOFT_* (src/docs/notes/connections.md): both of a pair or neither, the public URLs by default, `…_FILE` for each. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const base = { BASE_URL: "http://127.0.0.1:3000", CREW_SECRET: "x".repeat(32) };

describe("connection settings", () => {
  it("are off unless set, with the public URLs and the organizations tenant by default", () => {
    expect(loadConfig(base).google).toBeNull();
    const config = loadConfig({
      ...base,
      GOOGLE_CLIENT_ID: "id",
      GOOGLE_CLIENT_SECRET: "s",
      MICROSOFT_CLIENT_ID: "mid",
      MICROSOFT_CLIENT_SECRET: "ms",
    });
    expect(config.google).toEqual({
      clientId: "id",
      clientSecret: "s",
      oauthUrl: "https://accounts.google.com",
      apiUrl: "https://www.googleapis.com",
    });
    expect(config.microsoft).toEqual({
      clientId: "mid",
      clientSecret: "ms",
      tenant: "organizations",
      loginUrl: "https://login.microsoftonline.com",
      graphUrl: "https://graph.microsoft.com",
    });
  });

  it("refuse half a pair and a tenant that is not a name", () => {
    expect(() => loadConfig({ ...base, GOOGLE_CLIENT_ID: "id" })).toThrow(
      new ConfigError("GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together"),
    );
    expect(() => loadConfig({ ...base, MICROSOFT_CLIENT_ID: "a", MICROSOFT_CLIENT_SECRET: "b", MICROSOFT_TENANT: "x/../y" })).toThrow(
      ConfigError,
    );
  });

  it("read the secret from a file", () => {
    const config = loadConfig({ ...base, GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET_FILE: "/run/secrets/google" }, (path) =>
      path === "/run/secrets/google" ? "from-file\n" : "",
    );
    expect(config.google?.clientSecret).toBe("from-file");
  });
});
