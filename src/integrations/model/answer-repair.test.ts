/** Small models welcome (src/docs/notes/prompt-injection.md#small-models): the answer's JSON taken out, enum values matched. */
import { describe, expect, it } from "vitest";
import { extractJson, matchEnums } from "./answer-repair.ts";

describe("the answer's JSON", () => {
  it.each([
    ['{"summary":"x"}', null],
    ['```json\n{"summary":"x"}\n```', "took the JSON out of a code fence"],
    ['Sure! Here is my answer: {"summary":"x"} Hope it helps.', "took the JSON out of the text around it"],
  ])("%s", (text, repaired) => {
    expect(extractJson(text)).toEqual({ value: { summary: "x" }, repaired });
  });

  it("finds none in prose", () => {
    expect(extractJson("Things look fine.")).toBeNull();
  });
});

describe("enum values", () => {
  const schema = {
    type: "object",
    properties: {
      actions: {
        type: "array",
        items: {
          type: "object",
          properties: { priority: { enum: ["critical", "high", "medium", "low"] }, type: { enum: ["task", "approval", "follow_up"] } },
        },
      },
    },
  };
  it("match by case and synonym, and say so", () => {
    const notes: string[] = [];
    const out = matchEnums(
      {
        actions: [
          { priority: "URGENT", type: "Follow-Up" },
          { priority: "High", type: "someday" },
        ],
      },
      schema,
      notes,
    );
    expect(out).toEqual({
      actions: [
        { priority: "critical", type: "follow_up" },
        { priority: "high", type: "someday" },
      ],
    });
    expect(notes).toEqual([
      'actions[0].priority: "URGENT" read as "critical"',
      'actions[0].type: "Follow-Up" read as "follow_up"',
      'actions[1].priority: "High" read as "high"',
    ]);
  });
});
