/** A `<data name="…" untrusted="true">` field of a model-backed run's user message, parsed (src/agents/model-inputs.ts). */
export function untrustedData(text: string | undefined, name: string): any {
  const found = new RegExp(`<data name="${name}" untrusted="true">\\n(.*)\\n</data>`).exec(text ?? "")?.[1];
  return found === undefined ? null : JSON.parse(found);
}
