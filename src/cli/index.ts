/**
 * `crew <command>` (src/docs/notes/cli.md), run by bin/crew.js through tsx. Configuration comes from the
 * environment exactly as for the server. Results go to stdout (`--json` for machine-readable
 * records); every error is one line on stderr, with exit code 2 for usage errors (unknown
 * command or option, missing or invalid flag value) and 1 for everything else.
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../config.ts";
import { KEY_SCOPES, PLANS } from "../domain.ts";
import { withDotEnv } from "../environment.ts";
import { OPERATE_COMMANDS } from "./operate-commands.ts";
import { type CliIo, type Command, CommandError, type Env, type Flags, jsonOption, orgOption, UsageError, usageOf } from "./support.ts";

export type { CliIo };

// This file is the dispatcher: the command table (names, options, help), argument parsing and
// exit codes. Each implementation has its own file beside this one (users.ts, database.ts,
// webhooks.ts, agents.ts; shared helpers in support.ts) and loads only
// when its command runs, as do the store, the app and the MCP server: `--help` and usage errors
// answer without compiling the whole service.

const COMMANDS: Command[] = [
  {
    name: "serve",
    summary: "Start the HTTP server (same as npm start).",
    options: {},
    examples: ["PORT=8080 npx crew serve"],
    notes: "Applies the schema, seeds the 17 agents, serves until SIGINT/SIGTERM.",
    async run(_flags, env) {
      const { serveNode } = await import("../serve.ts");
      await serveNode(env);
      return "running";
    },
  },
  {
    name: "migrate",
    summary: "Apply the schema or pending migrations, then exit.",
    options: {},
    examples: ["DATABASE_URL=file:/var/lib/crew/crew.db npx crew migrate"],
    async run(_flags, env, io) {
      const { migrateFromCli } = await import("./database.ts");
      return migrateFromCli(env, io);
    },
  },
  {
    name: "seed",
    summary: "Ensure the default organization and its 17 agents; with --demo, load demo content.",
    options: {
      demo: { type: "boolean", description: "Also load realistic demo content into the organization." },
      org: orgOption,
    },
    examples: ["npx crew seed", "npx crew seed --demo"],
    notes:
      "--demo writes agent runs in every health state, standups, a company profile, suggestions, actions,\n" +
      "contacts, handoffs, insights, integration alerts, and a briefing for every user of the organization.\n" +
      "Running it again replaces the previous demo rows with fresh ones; nothing else is touched.",
    run: (flags, env, io) => import("./database.ts").then((m) => m.seedFromCli(flags, env, io)),
  },
  {
    name: "user create",
    summary: "Create a user in an organization (default: the default organization).",
    options: {
      email: { type: "string", value: "E", description: "Email address (unique, case-insensitive).", required: true },
      password: { type: "string", value: "P", description: "Password, at least 8 characters.", required: true },
      name: { type: "string", value: "N", description: "Display name (default: the email's local part)." },
      plan: { type: "string", value: "PLAN", description: `One of ${PLANS.join(", ")} (default: lite).` },
      role: {
        type: "string",
        value: "owner|member",
        description:
          "owner (manages the organization in the web app) or member; default: owner for the organization's first user, else member.",
      },
      org: orgOption,
      json: jsonOption,
    },
    examples: ["npx crew user create --email ada@example.com --password 'long secret' --plan operator"],
    run: (flags, env, io) => import("./users.ts").then((m) => m.createUserFromCli(flags, env, io)),
  },
  {
    name: "user set-plan",
    summary: "Change a user's plan; it applies at once to their existing keys and tokens.",
    options: {
      email: { type: "string", value: "E", description: "The user's email address.", required: true },
      plan: { type: "string", value: "PLAN", description: `One of ${PLANS.join(", ")}.`, required: true },
    },
    examples: ["npx crew user set-plan --email ada@example.com --plan pro"],
    run: (flags, env, io) => import("./users.ts").then((m) => m.setUserPlanFromCli(flags, env, io)),
  },
  {
    name: "user set-role",
    summary: "Make a user an owner (manages the organization in the web app) or a member.",
    options: {
      email: { type: "string", value: "E", description: "The user's email address.", required: true },
      role: { type: "string", value: "owner|member", description: "owner or member.", required: true },
    },
    examples: ["npx crew user set-role --email ada@example.com --role owner"],
    notes: "An organization always keeps at least one active owner.",
    run: (flags, env, io) => import("./users.ts").then((m) => m.setUserRoleFromCli(flags, env, io)),
  },
  {
    name: "key create",
    summary: "Create an API key for a user and print it (shown only once).",
    options: {
      email: { type: "string", value: "E", description: "The key owner's email address.", required: true },
      name: { type: "string", value: "N", description: "A label for the key, 1–100 characters.", required: true },
      scopes: {
        type: "string",
        value: "a,b",
        description: `Comma-separated scopes: ${KEY_SCOPES.join(", ")}; only those the user's plan allows.`,
        required: true,
      },
      json: jsonOption,
    },
    examples: ["KEY=$(npx crew key create --email ada@example.com --name laptop --scopes admin)"],
    notes: "Prints only the key on stdout (a note goes to stderr), so it can be captured by a script.",
    run: (flags, env, io) => import("./users.ts").then((m) => m.createKeyFromCli(flags, env, io)),
  },
  {
    name: "webhook add",
    summary: "Subscribe a URL to events of the default organization; prints the signing secret once.",
    options: {
      url: {
        type: "string",
        value: "U",
        description: "The receiver, an http(s) URL (private addresses need ALLOW_PRIVATE_TARGETS).",
        required: true,
      },
      events: {
        type: "string",
        value: "a,b",
        description: "Comma-separated events: action.created, briefing.completed, standup.ready, budget.warning.",
        required: true,
      },
      description: { type: "string", value: "D", description: "A note on what receives the events." },
      org: orgOption,
      json: jsonOption,
    },
    examples: ["npx crew webhook add --url https://hooks.example.com/crew --events action.created,standup.ready"],
    notes: "The secret (whsec_…) signs every delivery per Standard Webhooks; it is shown only once.",
    run: (flags, env, io) => import("./webhooks.ts").then((m) => m.addWebhookFromCli(flags, env, io)),
  },
  {
    name: "agents run",
    summary: "Run a built-in agent once now, or run every agent that is due (one scheduler pass).",
    usage: "crew agents run <agent> | crew agents run --due [--org ORG] [--json]",
    positional: {
      name: "agent",
      value: "<agent>",
      description: "The agent to run now (model-backed ones need a model; slack also needs Slack).",
    },
    options: {
      due: { type: "boolean", description: "Run every agent whose scheduled slot is due (what the server's scheduler does)." },
      org: orgOption,
      json: jsonOption,
    },
    examples: ["npx crew agents run standup", "npx crew agents run --due"],
    notes:
      "Built-in runners compose from stored data: standup (mode by local time), briefing (every user), pulse, dna.\n" +
      "The others run with the connected model (CREW_MODEL_* or Settings → Model; slack reads Settings → Slack): an\n" +
      "external runner can act for any agent through the agent-run API (POST /api/agents/{id}/runs, then\n" +
      "…/complete). --due takes the scheduler lease: while a server on the\n" +
      "same database leads the scheduler, it is the one that runs what is due.",
    async run(flags, env, io) {
      // Checked here, before the agents runtime loads, so this usage error answers fast too.
      const agent = typeof flags.agent === "string" ? flags.agent : undefined;
      if (agent && flags.due) throw new UsageError("give an agent or --due, not both");
      if (!agent && !flags.due) throw new UsageError("name the agent to run, or give --due");
      const { runAgentsFromCli } = await import("./agents.ts");
      return runAgentsFromCli(flags, env, io);
    },
  },
  {
    name: "agents resume",
    summary: "Resume an agent that paused itself after three failed scheduled runs.",
    positional: { name: "agent", value: "<agent>", description: "The paused agent." },
    options: { org: orgOption },
    examples: ["npx crew agents resume sales"],
    notes: "The scheduler runs it again from its next slot; its pause alert is resolved.",
    async run(flags, env, io) {
      if (typeof flags.agent !== "string") throw new UsageError("name the agent to resume");
      const { resumeAgentFromCli } = await import("./agents.ts");
      return resumeAgentFromCli(flags.agent, flags, env, io);
    },
  },
  {
    name: "model test",
    summary: "Make one tiny call to the connected model and print its answer or the exact error.",
    options: { json: jsonOption },
    examples: [
      "CREW_MODEL_PROVIDER=openai-compatible CREW_MODEL_BASE_URL=http://localhost:11434/v1 CREW_MODEL=llama3.2 npx crew model test",
    ],
    notes: "Uses CREW_MODEL_* when set, else the model saved in Settings → Model for the default organization.",
    run: (flags, env, io) => import("./model.ts").then((m) => m.testModelFromCli(flags, env, io)),
  },
  {
    name: "notify test",
    summary: "Send one test mail through SMTP_URL and print whether the server took it, or its exact reply.",
    options: { email: { type: "string", value: "E", description: "Where to send the test mail.", required: true }, json: jsonOption },
    examples: ["SMTP_URL=smtp://user:pass@mail.example.com:587 MAIL_FROM=crew@example.com npx crew notify test --email you@example.com"],
    notes: "Checks the mail settings (SMTP_URL, MAIL_FROM) the briefing mail uses; nothing is stored.",
    run: (flags, env, io) => import("./notify.ts").then((m) => m.notifyTestFromCli(flags, env, io)),
  },
  {
    name: "eval",
    summary: "Measure the connected model on the evaluation sets (throwaway databases) and print a scorecard per agent.",
    options: {
      agent: { type: "string", value: "ID", description: "Only this model-backed agent." },
      set: { type: "string", value: "NAME", description: "Only this set (a folder of evals/sets)." },
      dir: { type: "string", value: "DIR", description: "Read the sets from this folder instead of the ones shipped with Crew." },
      concurrency: { type: "string", value: "N", description: "Scenarios run at once (default 2)." },
      org: orgOption,
      json: jsonOption,
    },
    examples: ["npx crew eval", "npx crew eval --agent inbox --set inbox-week", "npx crew eval --json > scorecard.json"],
    notes:
      "Each scenario (an agent on a set) runs in its own throwaway database, removed afterwards; the organization's data is\n" +
      "never touched, only the scorecard is stored (eval_runs). Exit 1 when a bar is missed (a failed run, valid first try\n" +
      "< 90 %, evidence < 100 %, citation support < 95 %, utility < 80 %, any attack succeeding), each named. CREW_MODEL_PRICE_INPUT / CREW_MODEL_PRICE_OUTPUT (USD per million tokens) add a cost column. See /docs/notes/eval.",
    run: (flags, env, io) => import("./eval.ts").then((m) => m.evalFromCli(flags, env, io)),
  },
  {
    name: "mcp",
    summary: "Serve the MCP tools over stdio, acting as the user whose API key is in CREW_API_KEY.",
    options: {},
    examples: ['{"command": "npx", "args": ["crew", "mcp"], "env": {"CREW_API_KEY": "crew_…"}}'],
    notes: "For local MCP clients (Claude Desktop, Cursor, …); the same plan and scope rules as over HTTP.",
    async run(_flags, env) {
      const { runStdioServer } = await import("../mcp/stdio.ts");
      await runStdioServer(env); // resolves when the client closes stdin
      return 0;
    },
  },
  {
    name: "mcp server-json",
    summary: "Print this server's server.json (MCP Registry schema 2025-12-11), for a private registry.",
    options: {},
    examples: ["npx crew mcp server-json > server.json"],
    notes: "Names the server by BASE_URL's host (io.crew/<host>), with /mcp and /mcp/readonly as its remotes. See /docs/notes/discovery.",
    async run(_flags, env, io) {
      const [{ loadConfig }, { registryServerJson }] = await Promise.all([import("../config.ts"), import("../docs/server-card.ts")]);
      io.out(`${JSON.stringify(registryServerJson(loadConfig(env).baseUrl), null, 2)}\n`);
      return 0;
    },
  },
];

COMMANDS.push(...OPERATE_COMMANDS);

const GROUPS = ["user", "key", "webhook", "agents", "model", "org", "notify", "db"];

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Crew: a self-hostable operations assistant service.",
    "",
    "Usage: crew <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run crew <command> --help for its options. Configuration comes from the environment",
    "(DATABASE_URL, PORT, …; see the README).",
    "crew --version prints the release. Exit codes: 0 success, 1 failure, 2 usage error.",
    "",
  ].join("\n");
}

function commandHelp(command: Command): string {
  const entries = Object.entries(command.options).map(([name, o]) => [`--${name}${o.value ? ` ${o.value}` : ""}`, o.description]);
  if (command.positional) entries.unshift([command.positional.value, command.positional.description]);
  entries.push(["--help", "Show this help."]);
  const width = Math.max(...entries.map(([flag]) => flag?.length ?? 0));
  return [
    `Usage: ${usageOf(command)}`,
    "",
    command.summary,
    ...(command.notes ? ["", command.notes] : []),
    "",
    "Options:",
    ...entries.map(([flag, text]) => `  ${flag?.padEnd(width)}  ${text}`),
    "",
    "Example:",
    ...command.examples.map((e) => `  ${e}`),
    "",
  ].join("\n");
}

/** node:util's parse errors, reworded to one short line naming the option. */
function parseError(error: unknown, command: Command): UsageError {
  const code = (error as { code?: string }).code;
  const quoted = /'([^']+)'/.exec(String((error as Error).message))?.[1] ?? "";
  const option = quoted.split(" ")[0];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return new UsageError(`unknown option ${option}`);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return command.options[option?.replace(/^--/, "") ?? ""]?.type === "boolean"
      ? new UsageError(`${option} takes no value`)
      : new UsageError(`${option} needs a value`);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return new UsageError(`unexpected argument "${quoted}"`);
  return new UsageError(String((error as Error).message));
}

function findCommand(words: string[]): { command: Command; rest: number } {
  const first = words[0] ?? "";
  if (GROUPS.includes(first)) {
    const sub = words[1];
    const command = COMMANDS.find((c) => c.name === `${first} ${sub}`);
    if (!sub)
      throw new UsageError(
        `missing subcommand: ${COMMANDS.filter((c) => c.name.startsWith(`${first} `))
          .map((c) => c.name)
          .join(" | ")}`,
      );
    if (!command) throw new UsageError(`unknown command "${first} ${sub}"`);
    return { command, rest: 2 };
  }
  // A command with subcommands of its own (`mcp`, `mcp server-json`).
  const nested = words[1] === undefined ? undefined : COMMANDS.find((c) => c.name === `${first} ${words[1]}`);
  if (nested) return { command: nested, rest: 2 };
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) throw new UsageError(`unknown command "${first}"`);
  return { command, rest: 1 };
}

/** Runs one command line; resolves to the exit code, or "running" when the command keeps serving. */
export async function runCli(argv: string[], given: Env, io: CliIo): Promise<number | "running"> {
  let command: Command | null = null;
  // The server's configuration: a .env in the working directory, under what the environment sets.
  const env = withDotEnv(given);
  try {
    if (argv.length === 0) throw new UsageError("missing command");
    if (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version") {
      const { VERSION } = await import("../lib/version.ts");
      io.out(`crew ${VERSION}\n`);
      return 0;
    }
    if (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
      io.out(topHelp());
      return 0;
    }
    const words = argv.slice(0, 2).filter((w) => !w.startsWith("-"));
    if (GROUPS.includes(words[0] ?? "") && words.length === 1 && argv.some((a) => a === "--help" || a === "-h")) {
      io.out(
        `${COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `))
          .map(commandHelp)
          .join("\n")}`,
      );
      return 0;
    }
    const found = findCommand(words);
    command = found.command;
    const parsed = (() => {
      try {
        return parseArgs({
          args: argv.slice(found.rest),
          options: { ...command.options, help: { type: "boolean", short: "h" } },
          strict: true,
          allowPositionals: Boolean(command.positional),
        });
      } catch (error) {
        throw parseError(error, found.command);
      }
    })();
    const flags = parsed.values as Flags;
    if (parsed.positionals.length > 1) throw new UsageError(`unexpected argument "${parsed.positionals[1]}"`);
    if (command.positional && parsed.positionals[0] !== undefined) flags[command.positional.name] = parsed.positionals[0];
    if (flags.help) {
      io.out(commandHelp(command));
      return 0;
    }
    for (const [name, option] of Object.entries(command.options)) {
      if (option.required && (flags[name] === undefined || flags[name] === "")) throw new UsageError(`missing --${name}`);
    }
    return await command.run(flags, env, io);
  } catch (error) {
    const where = command ? `crew ${command.name}` : "crew";
    if (error instanceof UsageError) {
      io.err(`${where}: ${error.message} (see ${where} --help)\n`);
      return 2;
    }
    if (error instanceof CommandError || error instanceof ConfigError) {
      io.err(`${where}: ${error.message}\n`);
      return 1;
    }
    // Unexpected errors (a database that cannot be opened, …): the first line of the message.
    io.err(`${where}: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}\n`);
    if (env.LOG_LEVEL === "debug") io.err(`${(error as Error)?.stack ?? ""}\n`);
    return 1;
  }
}
