/** `crew model test`: one tiny call to the connected model (src/docs/notes/model.md), its answer or the exact error. */
import { describeStructured, resolveModel, testModel } from "../integrations/model/settings.ts";
import { systemClock } from "../lib/clock.ts";
import { type CliIo, type Env, type Flags, printJson, withStore } from "./support.ts";

export async function testModelFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const outcome = await withStore(env, async (db, org, config) => {
    const { outboundPolicy } = await import("../outbound-connector.ts");
    const model = await resolveModel({ db, config, clock: systemClock, outbound: outboundPolicy(config.allowPrivateTargets) }, org.id);
    return { model, result: await testModel(model) };
  });
  if (flags.json) printJson(io, outcome.result);
  else if (outcome.result.ok) {
    const m = outcome.model;
    io.out(
      `${m?.provider} ${m?.model} (from ${m?.source}) answered "${outcome.result.answer}" (${outcome.result.tokensIn} tokens in, ${outcome.result.tokensOut} out).\n${describeStructured(outcome.result)}\n`,
    );
  } else io.err(`model test failed: ${outcome.result.error}\n`);
  return outcome.result.ok ? 0 : 1;
}
