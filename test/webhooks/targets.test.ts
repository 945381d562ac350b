/** Where webhooks may point (src/docs/notes/webhooks.md): the URL shape, and the part of the outbound policy checked at creation. Address rules: test/integrations/outbound.test.ts. */
import { describe, expect, it } from "vitest";
import { privateTargetProblem, urlProblem } from "../../src/integrations/outbound-targets.ts";

describe("privateTargetProblem and urlProblem", () => {
  it("refuses local names and private literals only while private targets are off", () => {
    for (const url of ["http://localhost/", "http://a.b.localhost:1/", "http://127.1/", "http://[::ffff:a00:1]/"]) {
      expect(privateTargetProblem(url, false), url).toMatch(/ALLOW_PRIVATE_TARGETS is off/);
      expect(privateTargetProblem(url, true), url).toBeNull();
    }
    expect(privateTargetProblem("https://localhost.example.com/", false)).toBeNull();
  });

  it("issue 11 item 2: refuses IPv6 forms that embed an IPv4 address (the outbound policy's rule)", () => {
    for (const url of ["http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://[::7f00:1]/", "http://[::ffff:169.254.169.254]/"]) {
      expect(privateTargetProblem(url, false), url).toMatch(/ALLOW_PRIVATE_TARGETS is off/);
    }
    expect(privateTargetProblem("http://[2606:4700::1111]/", false)).toBeNull();
  });

  it("takes http(s) URLs without credentials", () => {
    expect(urlProblem("https://example.com/a?b=c")).toBeNull();
    expect(urlProblem("mailto:a@example.com")).toBe("Must be an http:// or https:// URL.");
    expect(urlProblem("/relative")).toBe("Must be an absolute http:// or https:// URL.");
    expect(urlProblem("https://u@example.com/")).toBe("Must not contain a user name or password.");
  });
});
