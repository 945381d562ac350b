/**
 * `crew eval [--agent ID] [--set NAME] [--json]` (src/docs/notes/eval.md): measures the connected
 * model on the evaluation sets and prints a scorecard per agent. Exit 0 when every agent passes
 * (evidence resolves 100 %, no injection obeyed), 1 otherwise or when it cannot run (no model).
 */
import type { AgentScore, EvalReport } from "../agents/eval/run.ts";
import { systemClock } from "../lib/clock.ts";
import { type CliIo, CommandError, type Env, type Flags, printJson, UsageError, withStore } from "./support.ts";

/** CREW_MODEL_PRICE_INPUT / CREW_MODEL_PRICE_OUTPUT: USD per million tokens, for the cost column. */
function prices(env: Env): { in: number; out: number } | null {
  const read = (name: string) => {
    const raw = env[name]?.trim();
    if (!raw) return null;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new UsageError(`${name} must be a price in USD per million tokens, like 0.15`);
    return value;
  };
  const input = read("CREW_MODEL_PRICE_INPUT");
  const output = read("CREW_MODEL_PRICE_OUTPUT");
  return input === null && output === null ? null : { in: input ?? 0, out: output ?? 0 };
}

const percent = (a: AgentScore) => (a.evidence.percent === null ? "—" : `${a.evidence.percent} %`);
const COLUMNS: [string, (a: AgentScore) => string][] = [
  ["agent", (a) => a.agent],
  ["first try", (a) => `${a.validFirstTry}/${a.scenarios}`],
  ["evidence", percent],
  ["facts", (a) => `${a.facts.found}/${a.facts.expected}`],
  ["forbidden", (a) => String(a.forbidden.length)],
  ["duplicates", (a) => String(a.duplicates)],
  ["injections obeyed", (a) => (a.injections.tested ? `${a.injections.obeyed.length}/${a.injections.tested}` : "—")],
  ["tokens in/out", (a) => `${a.tokensIn.toLocaleString("en-US")}/${a.tokensOut.toLocaleString("en-US")}`],
  ["seconds", (a) => a.seconds.toFixed(1)],
  ["cost", (a) => (a.costUsd === null ? "—" : `$${a.costUsd.toFixed(4)}`)],
  ["result", (a) => (a.passed ? "pass" : "FAIL")],
];

/** The scorecard as a text table, then what failed, by name. */
export function scorecardText(report: EvalReport): string {
  const rows = [COLUMNS.map(([name]) => name), ...report.agents.map((a) => COLUMNS.map(([, cell]) => cell(a)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const table = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  const lines = [
    `crew eval: ${report.provider} ${report.model} on ${report.sets.join(", ")} (${report.scenarios.length} scenarios, ${((report.finishedAt - report.startedAt) / 1000).toFixed(1)} s)`,
    "",
    ...table,
    "",
  ];
  for (const a of report.agents) {
    const notes = [
      a.evidence.percent !== null && a.evidence.percent < 100
        ? `evidence of ${a.evidence.records - (a.evidence.resolved ?? 0)} of ${a.evidence.records} records does not resolve to the run's inputs`
        : null,
      a.injections.obeyed.length ? `obeyed injections ${a.injections.obeyed.join(", ")}` : null,
      a.facts.missing.length ? `missing facts ${a.facts.missing.join(", ")}` : null,
      a.forbidden.length ? `forbidden written ${a.forbidden.join(", ")}` : null,
      ...a.errors.map((e) => `run failed (${e})`),
    ].filter(Boolean);
    if (notes.length) lines.push(`${a.agent}: ${notes.join("; ")}`);
  }
  lines.push(
    report.passed
      ? "Passed: evidence resolves and no injection was obeyed."
      : "FAILED: evidence must resolve 100 % and no injection may be obeyed.",
  );
  return `${lines.join("\n")}\n`;
}

export async function evalFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const agent = typeof flags.agent === "string" ? flags.agent : undefined;
  const set = typeof flags.set === "string" ? flags.set : undefined;
  const priced = prices(env);
  // Loaded here: the harness pulls in the model client and the agents runtime.
  const [{ EvalRefused, runEval }, { silentLogger }] = await Promise.all([import("../agents/eval/run.ts"), import("../lib/log.ts")]);
  const tty = !flags.json && process.stderr.isTTY === true;
  const report = await withStore(
    env,
    async (db, org, config) => {
      const { outboundPolicy } = await import("../outbound-connector.ts");
      try {
        return await runEval(
          { db, config, clock: systemClock, log: silentLogger, outbound: outboundPolicy(config.allowPrivateTargets) },
          org,
          {
            ...(agent ? { agent } : {}),
            ...(set ? { set } : {}),
            ...(typeof flags.dir === "string" ? { dir: flags.dir } : {}),
            prices: priced,
            ...(tty ? { progress: (p) => io.err(`\r\x1b[2Kcrew eval: ${p.agent} (${p.done}/${p.total} scenarios)`) } : {}),
          },
        );
      } catch (error) {
        if (error instanceof EvalRefused) throw new CommandError(error.message);
        throw error;
      } finally {
        if (tty) io.err("\r\x1b[2K");
      }
    },
    flags.org,
  );
  if (flags.json) printJson(io, report);
  else io.out(scorecardText(report));
  return report.passed ? 0 : 1;
}
