/**
 * `npx crew mcp`: the same MCP tools over stdio for local clients (Claude Desktop, …), acting as
 * the user of CREW_API_KEY. Each tools request re-checks the key (revocation, plan changes) and
 * takes one unit of that user's quota, as an HTTP request to /mcp would. stdout carries JSON-RPC
 * only; logs go to stderr.
 */
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { admit } from "../auth/admit.ts";
import { authenticateBearer } from "../auth/bearer.ts";
import { bootDeps } from "../boot.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/random.ts";
import { operations } from "../operations/index.ts";
import type { McpCaller } from "./caller.ts";
import { mcpServerFactory } from "./server.ts";
import { buildToolCatalog } from "./tools.ts";
import { FULL_VIEW } from "./toolsets.ts";

type Readable = NonNullable<ConstructorParameters<typeof StdioServerTransport>[0]>;
type Writable = NonNullable<ConstructorParameters<typeof StdioServerTransport>[1]>;

/**
 * Serves MCP on stdin/stdout until stdin ends. Throws, with a message meant for the person at the
 * terminal, when CREW_API_KEY is missing or refused or the configuration is invalid.
 */
export async function runStdioServer(
  env: Record<string, string | undefined>,
  io: { stdin?: Readable; stdout?: Writable } = {},
): Promise<void> {
  const key = (env.CREW_API_KEY ?? "").trim();
  if (key === "") {
    throw new Error("CREW_API_KEY is not set: create an API key (dashboard or `npx crew key create`) and put it in the environment.");
  }
  const booted = await bootDeps(env, { existingDatabaseOnly: true });
  const { db, config, clock, log } = booted.deps;
  const header = `Bearer ${key}`;

  let principal: Principal;
  try {
    principal = await authenticateBearer(db, config, header, clock.now());
  } catch (error) {
    await booted.close();
    if (error instanceof ApiError) throw new Error(`CREW_API_KEY was refused: ${error.message}`);
    throw error;
  }
  if (principal.plan === "lite" || principal.plan === "team_starter") {
    log.warn("this user's plan includes no MCP tools; tools/list will be empty", { plan: principal.plan });
  }

  const caller: McpCaller = {
    async principal() {
      return (await admit(booted.deps, header)).principal;
    },
    peek: () => authenticateBearer(db, config, header, clock.now()),
    requestId: () => newId("req", clock.now()),
    view: FULL_VIEW,
    // One client per process: the protocol version and capabilities are what its opening negotiated,
    // which the connection's one server keeps.
  };

  const factory = mcpServerFactory(booted.deps, buildToolCatalog(operations, config.baseUrl), { callerOf: () => caller });
  // The stdio transport is Node's by nature (the SDK's, over process.stdin/stdout by default); it
  // closes when the client closes stdin, which ends the session. The SDK's entry pins the era the
  // client opens with (initialize: 2025; server/discover: 2026-07-28) to one server of the factory.
  const transport = new StdioServerTransport(io.stdin ?? process.stdin, io.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    const handle = serveStdio(factory, { transport, onerror: (error) => log.warn("MCP stdio error", { error: String(error) }) });
    const entryClose = transport.onclose;
    transport.onclose = () => {
      entryClose?.();
      void handle.close().finally(resolve);
    };
  });
  log.info("crew MCP server on stdio", { user: principal.email, plan: principal.plan });
  await closed;
  await booted.close();
}
