/** Where webhooks may point (SPEC §9): the pure address policy behind both checks (creation, delivery). */
import { describe, expect, it } from "vitest";
import { isPrivateAddress, privateTargetProblem, urlProblem } from "../../src/webhooks/targets.ts";

describe("isPrivateAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.20.30.40",
    "172.16.0.0",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",
    "0.0.0.0",
    "100.64.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "[::1]",
    "fc00::1",
    "fdff:ffff::1",
    "fe80::1",
    "fe80::1%eth0",
    "febf::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:192.168.1.1",
    "ff02::1",
    "0:0:0:0:0:0:0:1",
  ])("%s is not public", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "172.15.255.255",
    "172.32.0.0",
    "192.169.0.1",
    "169.255.0.1",
    "100.128.0.1",
    "2606:4700::1111",
    "2001:db8::1",
    "::ffff:8.8.8.8",
    "fbff::1",
    "fec0::1x",
  ])("%s is public (or not an address)", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe("privateTargetProblem and urlProblem", () => {
  it("refuses local names and private literals only while private targets are off", () => {
    for (const url of ["http://localhost/", "http://a.b.localhost:1/", "http://127.1/", "http://[::ffff:a00:1]/"]) {
      expect(privateTargetProblem(url, false), url).toMatch(/WEBHOOK_ALLOW_PRIVATE is off/);
      expect(privateTargetProblem(url, true), url).toBeNull();
    }
    expect(privateTargetProblem("https://localhost.example.com/", false)).toBeNull();
  });

  it("takes http(s) URLs without credentials", () => {
    expect(urlProblem("https://example.com/a?b=c")).toBeNull();
    expect(urlProblem("mailto:a@example.com")).toBe("Must be an http:// or https:// URL.");
    expect(urlProblem("/relative")).toBe("Must be an absolute http:// or https:// URL.");
    expect(urlProblem("https://u@example.com/")).toBe("Must not contain a user name or password.");
  });
});
