/** Form fields take their limits and choices from the operation's valibot schema (src/web/ui.ts fieldRules). */
import { describe, expect, it } from "vitest";
import { MAX_PASSWORD, MIN_PASSWORD, Password } from "../../src/auth/passwords.ts";
import { PLANS, ROLES } from "../../src/domain.ts";
import { fieldRules, rulesOf } from "../../src/html/ui.ts";
import { NewAction } from "../../src/operations/actions.ts";
import { ModelSettingsInput } from "../../src/operations/model.ts";
import { createUserOp } from "../../src/operations/users.ts";

describe("fieldRules", () => {
  it("reads required, lengths and picklist options from schemas, through optional wrappers and nested pipes", () => {
    expect(fieldRules(NewAction, "title")).toEqual({ required: true, minlength: 1, maxlength: 200 });
    expect(fieldRules(NewAction, "description")).toEqual({ required: false, maxlength: 5000 });
    expect(fieldRules(createUserOp.input, "role")).toEqual({ required: false, options: [...ROLES] });
    expect(fieldRules(createUserOp.input, "plan").options).toEqual([...PLANS]);
    // An object inside a pipe (a cross-field check around it).
    expect(fieldRules(ModelSettingsInput, "provider").options).toContain("openai-compatible");
    expect(rulesOf(Password)).toEqual({ required: true, minlength: MIN_PASSWORD, maxlength: MAX_PASSWORD });
    expect(() => fieldRules(NewAction, "nope")).toThrow("no field nope");
  });
});
